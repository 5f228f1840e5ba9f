//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Foundation

/// What the users service answers, as text to compare.
private func readUsers(_ service: UsersService) async throws -> [String] {
    var lines = try await service.users().value.map { "user \($0.id): \($0.name)" }
    let created = try await service.create(NewUser(name: "Grace Hopper", email: "grace@example.com")).value
    lines.append("created #\(created.id): \(created.name)")
    do {
        _ = try await service.user(id: 9).value
    } catch {
        lines.append("user 9: \(error.localizedDescription)")
    }
    return lines
}

/// Records the users service's exchanges into a HAR file, stops the server, and runs the same
/// service again from the file. Stops `server`.
func runRecordingDemo(server: TestServer) async throws {
    section("Record every exchange as HAR, then replay it with the server stopped")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("corenetkit-demo.har")
    let recorder = try HARRecorder(file: file)
    let original = NetworkConfiguration.default
    NetworkConfiguration.default.monitors.append(recorder)
    let recorded = try await readUsers(UsersService())
    recorder.close()
    NetworkConfiguration.default = original
    print("recorded \(recorder.count) exchanges in \(file.path) (open it in a browser's network panel)")

    await server.stop()
    NetworkConfiguration.default.transport = try HARReplayTransport(file: file)
    let replayed = try await readUsers(UsersService())
    NetworkConfiguration.default = original
    for line in replayed { print("replayed: \(line)") }
    print(replayed == recorded ? "same results with the server stopped" : "the replay differs from the recording")
}
