//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Dispatch
import Foundation

/// Prints a demo step's heading.
func section(_ title: String) { print("\n== \(title)") }

let server = try await TestServer.start()
API.base = server.baseURL
NetworkConfiguration.default.errorMappers = [DecodableErrorMapper(APIError.self)]
print("CoreNetKit \(CoreNetKitVersion.current) demo — embedded API at \(server.baseURL.absoluteString)")

let service = UsersService()
do {
    section("GET mapped to models (onSuccess/onError chain)")
    let users = try await service.users()
        .onSuccess { users in print("onSuccess: \(users.count) users, first is \(users[0].name)") }
        .onError { error in print("onError: \(error.localizedDescription)") }
        .value
    print("async/await: \(users.map(\.name).joined(separator: ", "))")

    section("POST with a JSON body")
    let created = try await service.create(NewUser(name: "Grace Hopper", email: "grace@example.com")).value
    print("created user #\(created.id): \(created.name) <\(created.email)>")

    section("A server error mapped to the app's own error")
    do {
        _ = try await service.placeOrder().value
    } catch let error as APIError {
        print("onError gets APIError: \(error.localizedDescription)")
    }
    do {
        _ = try await service.user(id: 9).value
    } catch let error as APIError {
        print("onError gets APIError: \(error.localizedDescription)")
    }

    section("Cancelling a request, and the TaskPool")
    let slow = service.slowReport()
    let first = service.user(id: 1)
    let joined = service.user(id: 1)  // same request id: joins the first, one network call
    print("in flight: \(TaskPool.shared.ids.joined(separator: ", "))")
    slow.onCancel { print("onCancel: the slow report was cancelled; neither onSuccess nor onError fires") }
    TaskPool.shared.cancel(id: "slow-report")
    let (a, b) = try await (first.value, joined.value)
    print(
        "two contexts, one call: \(a.name) / \(b.name); server saw GET /users/1 \(server.hits("GET", "/users/1")) time(s)"
    )
    print("in flight now: \(TaskPool.shared.isEmpty ? "nothing" : TaskPool.shared.ids.joined(separator: ", "))")

    try await runPaginationDemo(server: server)
    try await runCachingDemo(server: server)
    try await runFreshnessDemo(server: server)
    try await runTokenRefreshDemo(server: server)
    try await runMultipartDemo(server: server)
    try await runResumeDemo(server: server)
    try await runRetryDemo(server: server)
    try await runStreamingDemo(server: server)
    try await runOutboxDemo(server: server)
    try await runRecordingDemo(server: server)  // last: it stops the server
} catch {
    print("demo failed: \(error)")
    await server.stop()
    exit(1)
}

await server.stop()
print("\ndone")
