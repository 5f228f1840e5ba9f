//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Postgres
import CoreNetKitTestServer
import Dispatch
import Foundation
import PostgresNIO
import Testing

@testable import CoreNetKit

/// PostgresOutboxStore keeps a settled row until its outcome is delivered, and hands each
/// outcome to one process. Against a real PostgreSQL server (`.ci/run` starts one; see
/// ``TestDatabase``).
@Suite(.serialized, .timeLimit(.minutes(5))) struct OutboxPostgresDeliveryTests {
    static func store(_ name: String, deliveryLease: Duration = .seconds(60)) async throws -> PostgresOutboxStore {
        do {
            return try await PostgresOutboxStore(
                configuration: TestDatabase.configuration(), outbox: name, deliveryLease: deliveryLease)
        } catch let error as BaseServerError where error.code == .cannotConnect {
            Issue.record(
                "No PostgreSQL server answers: the Postgres trait's tests need one (.ci/run starts it). \(error)")
            throw error
        }
    }

    /// Queues `count` changes in `store` and settles each through the store, as a sender does,
    /// without delivering it: what a process leaves that dies right after its commits. Every
    /// third fails with a 400. Returns the identifiers, in the order they were queued.
    static func settleWithoutDelivering(_ count: Int, in store: PostgresOutboxStore) async throws -> [OutboxEntry.ID] {
        let outbox = Outbox(store: store, configuration: testConfiguration())
        var ids: [OutboxEntry.ID] = []
        for seq in 0..<count {
            ids.append(
                try await outbox.enqueue(
                    applyChange(URL(string: "http://127.0.0.1:1")!, queue: "q\(seq % 3)", seq: seq), kind: "apply",
                    queue: "q\(seq % 3)"))
        }
        let queued = ids
        for _ in 0..<count {
            let settled = try await store.sendNext { entry in
                let seq = queued.firstIndex(of: entry.id) ?? -1
                guard seq % 3 != 2 else {
                    return .failed(OutboxFailure(.badStatus(400, body: Data("no".utf8))))
                }
                let body = #"{"queue":"\#(entry.queue)","seq":\#(seq)}"#
                return .succeeded(OutboxResponse(statusCode: 201, body: Data(body.utf8)))
            }
            #expect(settled?.state != .pending)
        }
        return ids
    }

    @Test func outcomesSettledByAProcessThatDiedAreDeliveredOnceEachByTheNextOutboxToStart() async throws {
        let name = "outbox-\(UUID().uuidString)"
        let died = try await Self.store(name, deliveryLease: .zero)
        let ids = try await Self.settleWithoutDelivering(6, in: died)
        await died.close()
        let store = try await Self.store(name)
        let queue = DispatchQueue(label: "outbox-delivery-tests.callbacks")
        let outbox = Outbox(store: store, configuration: testConfiguration(), options: .init(callbackQueue: queue))
        let handled = HandledOutcomes()
        outbox.register("apply", as: AppliedChange.self) { id, result in handled.append(id, result) }

        outbox.start()
        try await handled.wait(for: ids.count)
        await outbox.stop()
        queue.sync {}
        try await withTimeout(30, "the delivery records") {
            while try await store.count(in: .succeeded) > 0 { await Task.yield() }
        }

        #expect(handled.ids.sorted(by: { $0.rawValue < $1.rawValue }) == ids.sorted(by: { $0.rawValue < $1.rawValue }))
        #expect(handled.models.map(\.seq).sorted() == [0, 1, 3, 4])
        #expect(handled.errors.map(\.statusCode) == [400, 400])
        #expect(try await store.entries(in: .failed).count == 2, "a failed entry stays in the failed list")
        let later = try await Self.store(name, deliveryLease: .zero)
        #expect(try await later.undelivered().isEmpty, "an outcome was left undelivered")
        await later.close()
        await store.close()
    }

    @Test func twoOutboxesStartingTogetherDeliverEachOutcomeOnceBetweenThem() async throws {
        let name = "outbox-\(UUID().uuidString)"
        let died = try await Self.store(name, deliveryLease: .zero)
        let ids = try await Self.settleWithoutDelivering(30, in: died)
        await died.close()
        let queue = DispatchQueue(label: "outbox-delivery-tests.callbacks")
        let handled = HandledOutcomes()
        var outboxes: [Outbox] = []
        var stores: [PostgresOutboxStore] = []
        for _ in 0..<2 {
            let store = try await Self.store(name)
            let outbox = Outbox(store: store, configuration: testConfiguration(), options: .init(callbackQueue: queue))
            outbox.register("apply", as: AppliedChange.self) { id, result in handled.append(id, result) }
            stores.append(store)
            outboxes.append(outbox)
        }

        for outbox in outboxes { outbox.start() }
        try await handled.wait(for: ids.count)
        for outbox in outboxes { await outbox.stop() }
        queue.sync {}

        #expect(handled.ids.count == ids.count, "an outcome was delivered twice")
        #expect(Set(handled.ids) == Set(ids))
        for store in stores { await store.close() }
    }

    @Test func twoStoresClaimingTogetherShareTheOutcomesOutAndAThirdGetsNone() async throws {
        let name = "outbox-\(UUID().uuidString)"
        let died = try await Self.store(name, deliveryLease: .zero)
        let ids = try await Self.settleWithoutDelivering(30, in: died)
        await died.close()
        let (first, second, third) = (
            try await Self.store(name), try await Self.store(name), try await Self.store(name)
        )

        async let firstClaim = first.undelivered()
        async let secondClaim = second.undelivered()
        let (firstTaken, secondTaken) = (try await firstClaim.map(\.id), try await secondClaim.map(\.id))
        let thirdTaken = try await third.undelivered()

        #expect(Set(firstTaken).isDisjoint(with: secondTaken), "an outcome was handed to both")
        #expect(Set(firstTaken + secondTaken) == Set(ids))
        #expect(firstTaken == ids.filter(firstTaken.contains), "not oldest first")
        #expect(thirdTaken.isEmpty, "a claim that has not lapsed was taken")
        for store in [first, second, third] { await store.close() }
    }

    @Test func anOutcomeItsSenderIsAboutToDeliverIsNotHandedToAProcessThatStarts() async throws {
        let name = "outbox-\(UUID().uuidString)"
        let sender = try await Self.store(name)
        let ids = try await Self.settleWithoutDelivering(1, in: sender)
        let starting = try await Self.store(name)

        let taken = try await starting.undelivered()

        #expect(taken.isEmpty)
        #expect(try await sender.entries(in: .succeeded).map(\.id) == ids, "the row is kept until delivered")
        try await sender.markDelivered(ids[0])
        #expect(try await sender.count(in: .succeeded) == 0)
        await sender.close()
        await starting.close()
    }

    @Test func aTableMadeBeforeAttemptsAndDeliveryClaimsGetsTheirColumnsAndKeepsItsRows() async throws {
        let table = "corenetkit_outbox_old_\(UInt32.random(in: 0...UInt32.max))"
        let name = "outbox-\(UUID().uuidString)"
        // Statements of the test's own, on a connection of a store of the default table.
        let admin = try await Self.store(name)
        let entry = try OutboxJournalTests.entry(1)
        let settled = entry.settled(.succeeded(OutboxResponse(statusCode: 201, body: Data("{}".utf8))))
        try await admin.withConnection { connection in
            // The table as the store made it before it counted attempts and claimed deliveries.
            try await admin.run(
                """
                CREATE TABLE \(unescaped: table) (
                    id text PRIMARY KEY, outbox text NOT NULL, queue text NOT NULL, seq bigserial,
                    state text NOT NULL DEFAULT 'pending', delivered boolean NOT NULL DEFAULT false,
                    entry text NOT NULL, settlement text, enqueued_at timestamptz NOT NULL DEFAULT now(),
                    settled_at timestamptz)
                """, on: connection)
            try await admin.run(
                """
                INSERT INTO \(unescaped: table) (id, outbox, queue, state, entry, settlement, settled_at)
                VALUES (\(entry.id.rawValue), \(name), \(entry.queue), 'succeeded',
                    \(try PostgresOutboxStore.encode(entry)), \(try PostgresOutboxStore.encode(settled)), now())
                """, on: connection)
        }

        do {
            let store = try await PostgresOutboxStore(
                configuration: TestDatabase.configuration(), outbox: name, table: table)
            let again = try await PostgresOutboxStore(
                configuration: TestDatabase.configuration(), outbox: name, table: table)

            #expect(try await store.undelivered().map(\.id) == [entry.id])
            #expect(try await again.undelivered().isEmpty)
            try await again.add(try OutboxJournalTests.entry(2))
            try await again.recordAttempts(1, of: OutboxEntry.ID("id-2"))
            #expect(try await store.entries(in: .pending).map(\.attempts) == [1])
            await store.close()
            await again.close()
        }
        try await admin.withConnection { connection in
            try await admin.run("DROP TABLE \(unescaped: table)", on: connection)
        }
        await admin.close()
    }
}

/// What an outbox's handlers were called with, in order.
final class HandledOutcomes: Sendable {
    private let state = Locked(
        (ids: [OutboxEntry.ID](), results: [Result<AppliedChange, BaseServerError>](), waiters: [(Int, Once<Void>)]()))

    func append(_ id: OutboxEntry.ID, _ result: Result<AppliedChange, BaseServerError>) {
        let ready = state.withLock { state -> [Once<Void>] in
            state.ids.append(id)
            state.results.append(result)
            let count = state.ids.count
            defer { state.waiters.removeAll { $0.0 <= count } }
            return state.waiters.filter { $0.0 <= count }.map(\.1)
        }
        for once in ready { once.fire(()) }
    }

    var ids: [OutboxEntry.ID] { state.withLock { $0.ids } }
    var models: [AppliedChange] { state.withLock { $0.results.compactMap { try? $0.get() } } }
    var errors: [BaseServerError] {
        state.withLock {
            $0.results.compactMap { result in
                guard case .failure(let error) = result else { return nil }
                return error
            }
        }
    }

    /// Returns once the handlers were called `count` times in all.
    func wait(for count: Int, timeout: Double = 60) async throws {
        let once = Once<Void>()
        let ready = state.withLock { state -> Bool in
            if state.ids.count >= count { return true }
            state.waiters.append((count, once))
            return false
        }
        if !ready { try await withTimeout(timeout, "\(count) handled outcomes") { await once.value } }
    }
}
#endif
