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

/// `POST /outbox/apply/:queue/:seq`'s answer.
private struct AppliedChange: Decodable, Sendable {
    let queue: String
    let seq: Int
}

/// Shows changes queued in an outbox on a journal, one answered and then dropped before its
/// answer arrived (sent again with the same Idempotency-Key, applied once), one refused with 400,
/// and a second outbox on the same journal finding what the first left.
func runOutboxDemo(server: TestServer) async throws {
    section("Offline changes: an outbox that sends each change once, across restarts")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("corenetkit-demo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let journal = folder.appendingPathComponent("outbox.journal")
    var retry = Outbox.Options.defaultRetryPolicy
    retry.baseDelay = .milliseconds(50)
    let options = Outbox.Options(retryPolicy: retry, callbackQueue: DispatchQueue(label: "demo.outbox"))

    do {
        let outbox = Outbox(store: try FileOutboxStore(url: journal), options: options)
        for (seq, query) in [(1, ""), (2, "?drop=1"), (3, "?status=400")] {
            try await outbox.enqueue(
                ServerRequest(
                    method: .post, baseUrl: server.baseURL, relativeUrl: "/outbox/apply/notes/\(seq)\(query)",
                    parameters: .jsonObject(["text": .string("note \(seq)")])),
                kind: "note", queue: "notes")
        }
        print("queued 3 changes, written to disk before enqueue returned; waiting: \(try await outbox.count())")
    }

    let outbox = Outbox(store: try FileOutboxStore(url: journal), options: options)
    outbox.register("note", as: AppliedChange.self) { id, result in
        switch result {
        case .success(let change): print("outcome \(id.rawValue.prefix(8)): note \(change.seq) applied")
        case .failure(let error): print("outcome \(id.rawValue.prefix(8)): \(error.localizedDescription)")
        }
    }
    var outcomes = outbox.outcomes().makeAsyncIterator()
    print("a new outbox on the same journal finds \(try await outbox.count()) waiting; starting it")
    outbox.start()
    for _ in 1...3 { _ = await outcomes.next() }
    await outbox.stop()
    let failed = try await outbox.failed()
    print(
        "the server applied \(server.outbox.totalEffects) changes (note 2 was sent "
            + "\(server.outbox.hitsByKey.values.max() ?? 0) times, applied once); failed list: "
            + failed.map { "status \($0.failure?.statusCode ?? 0) \($0.failure?.message ?? "")" }.joined(
                separator: ", "))
}
