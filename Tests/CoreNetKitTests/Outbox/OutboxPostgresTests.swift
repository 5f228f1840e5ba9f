//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Postgres
import CoreNetKitTestServer
import Foundation
import PostgresNIO
import Testing

@testable import CoreNetKit

/// Issue 44 with PostgresOutboxStore (the `Postgres` trait), against a real PostgreSQL server
/// (`.ci/run` starts one; see ``TestDatabase``): several processes drain one outbox.
@Suite(.serialized, .timeLimit(.minutes(5))) struct OutboxPostgresTests {
    static func store(_ name: String = "outbox-\(UUID().uuidString)") async throws -> PostgresOutboxStore {
        do {
            return try await PostgresOutboxStore(configuration: TestDatabase.configuration(), outbox: name)
        } catch let error as BaseServerError where error.code == .cannotConnect {
            Issue.record(
                "No PostgreSQL server answers: the Postgres trait's tests need one (.ci/run starts it). \(error)")
            throw error
        }
    }

    @Test func fourProcessesDrainAThousandEntriesEachSentExactlyOnceInOrderPerQueue() async throws {
        try await withTestServer { server in
            let store = try await Self.store()
            let outbox = Outbox(store: store, configuration: testConfiguration())
            let (entries, queues) = (1000, 20)
            for index in 0..<entries {
                try await outbox.enqueue(
                    applyChange(server.baseURL, queue: "q\(index % queues)", seq: index), kind: "apply",
                    queue: "q\(index % queues)")
            }
            let child = try FleetFixture.child()
            let started = ContinuousClock.now

            let processes = ProcessInfo.processInfo.environment["CORENETKIT_OUTBOX_PG_PROCESSES"].flatMap(Int.init) ?? 4
            let children = try (0..<processes).map { _ in
                try ChildProcess.start(
                    child, ["--outbox-drain", "postgres:\(store.outbox)", server.baseURL.absoluteString])
            }
            var statuses: [Int32] = []
            for process in children { statuses.append(try await process.finished()) }
            let elapsed = ContinuousClock.now - started

            #expect(statuses == Array(repeating: 0, count: processes))
            #expect(server.outbox.totalEffects == entries)
            #expect(server.outbox.hitsByKey.count == entries)
            #expect(server.outbox.hitsByKey.values.allSatisfy { $0 == 1 }, "an entry was sent twice")
            for queue in 0..<queues {
                #expect(
                    server.outbox.applied(queue: "q\(queue)") == Array(stride(from: queue, to: entries, by: queues)))
            }
            #expect(try await outbox.count() == 0)
            let shares = children.map { $0.lines.first { $0.hasPrefix("DRAINED") } ?? "-" }
            await store.close()
            print("OUTBOX-POSTGRES \(processes) processes drained \(entries) entries in \(elapsed) (\(shares))")
        }
    }

    @Test func credentialsAddedAtSendTimeAreNeverInTheRows() async throws {
        try await withTestServer { server in
            let store = try await Self.store()
            let configuration = testConfiguration { $0.preparators.append(OutboxSecretTests.CredentialPreparator()) }
            let outbox = Outbox(store: store, configuration: configuration)
            outbox.register("apply", as: AppliedChange.self)
            let log = OutcomeLog(outbox.outcomes())

            try await outbox.enqueue(applyChange(server.baseURL, seq: 1, query: "status=400"), kind: "apply")
            try await outbox.enqueue(applyChange(server.baseURL, seq: 2), kind: "apply")
            outbox.start()
            _ = try await log.wait(for: 2)
            await outbox.stop()

            let rows = try await store.storedText()
            #expect(server.outbox.authorization(forKey: try #require(server.outbox.hitsByKey.keys.first)) != nil)
            #expect(!rows.isEmpty)
            // Quoted: a header's name is a JSON key; `requiresAuthorization` is a field of every request.
            for secret in [#""Authorization""#, "Bearer", "sk-live-outbox-4242", #""Cookie""#, "cookie-outbox-7373"] {
                #expect(!rows.localizedCaseInsensitiveContains(secret), "\(secret) is stored")
            }
            #expect(try await outbox.failed().first?.failure?.statusCode == 400)
            await store.close()
        }
    }
}
#endif
