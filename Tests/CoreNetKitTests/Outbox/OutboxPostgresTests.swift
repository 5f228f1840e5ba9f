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

    @Test func aSenderLocksTheEntryItSendsAndNoOtherAndUnlocksItAfterwards() async throws {
        let store = try await Self.store()
        let outbox = Outbox(store: store, configuration: testConfiguration())
        var ids: [OutboxEntry.ID] = []
        for seq in 0..<5 {
            ids.append(
                try await outbox.enqueue(
                    applyChange(URL(string: "http://127.0.0.1:1")!, queue: "q\(seq)", seq: seq), kind: "apply",
                    queue: "q\(seq)"))
        }
        let probe = try await Self.store(store.outbox)
        let whileSending = Locked<[String]?>(nil)

        let sent = try await store.sendNext { _ in
            let locked = try? await Self.lockedEntries(probe)
            whileSending.withLock { $0 = locked }
            return nil
        }

        #expect(sent?.id == ids[0])
        #expect(whileSending.withLock { $0 } == [ids[0].rawValue])
        #expect(try await Self.lockedEntries(probe).isEmpty)
        await probe.close()
        await store.close()
    }

    @Test func attemptsAreCountedInTheRowAndAnEntryThatUsedThemFailsWithoutBeingSent() async throws {
        try await withTestServer { server in
            let name = "outbox-\(UUID().uuidString)"
            let store = try await Self.store(name)
            var options = Outbox.Options(retryPolicy: OutboxFixture.policy(attempts: 2))
            options.callbackQueue = DispatchQueue(label: "outbox-delivery-tests.callbacks")
            let outbox = Outbox(store: store, configuration: testConfiguration(), options: options)
            let log = OutcomeLog(outbox.outcomes())
            let id = try await outbox.enqueue(applyChange(server.baseURL, seq: 1), kind: "apply")

            // A process that began two attempts, counting each while it held the entry, then died.
            let left = try await store.sendNext { entry in
                try? await store.recordAttempts(1, of: entry.id)
                try? await store.recordAttempts(2, of: entry.id)
                return nil
            }
            #expect(left?.id == id)
            let other = try await Self.store(name)
            #expect(try await other.entries(in: .pending).map(\.attempts) == [2])
            outbox.start()
            let outcome = try #require(try await log.wait(for: 1).first)
            await outbox.stop()

            #expect(outcome.error?.message?.contains("gave up after 2 attempts") == true)
            #expect(try await other.entries(in: .failed).map(\.attempts) == [2])
            #expect(server.outbox.hitsByKey.isEmpty, "the entry was sent again")
            await other.close()
            await store.close()
        }
    }

    /// The identifiers of `store`'s entries whose advisory lock some session holds.
    static func lockedEntries(_ store: PostgresOutboxStore) async throws -> [String] {
        try await store.withConnection { connection in
            // The table's name is letters, digits and `_` (the store checks it): safe in a literal.
            let key = "hashtextextended('\(store.table)/' || e.id, 0)"
            let rows = try await store.query(
                """
                SELECT e.id FROM \(unescaped: store.table) e JOIN pg_locks l
                ON l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
                AND l.classid::bigint = ((\(unescaped: key) >> 32) & 4294967295)
                AND l.objid::bigint = (\(unescaped: key) & 4294967295)
                WHERE e.outbox = \(store.outbox) ORDER BY e.seq
                """, on: connection)
            var ids: [String] = []
            for try await id in rows.decode(String.self) { ids.append(id) }
            return ids
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
