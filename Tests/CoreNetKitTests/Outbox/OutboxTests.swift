//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

/// Issue 44: the outbox against the loopback server, which counts effects per `Idempotency-Key`.
@Suite(.timeLimit(.minutes(3))) struct OutboxTests {
    @Test func aQueuedChangeIsSentWithItsKeyAndItsModelReachesTheHandler() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let fixture = OutboxFixture(folder: folder)
                let (outbox, log) = try fixture.outbox()
                let handled = Once<Result<AppliedChange, BaseServerError>>()
                outbox.register("apply", as: AppliedChange.self) { _, result in handled.fire(result) }

                let id = try await outbox.enqueue(applyChange(server.baseURL, seq: 1), kind: "apply")
                let key = try #require(try await outbox.pending().first?.idempotencyKey)
                outbox.start()
                let outcome = try #require(try await log.wait(for: 1).first)
                let handledResult = try await withTimeout(30, "the handler") { await handled.value }
                await outbox.stop()

                #expect(outcome.id == id)
                #expect(outcome.model(as: AppliedChange.self) == AppliedChange(queue: "q", seq: 1))
                #expect(try handledResult.get() == AppliedChange(queue: "q", seq: 1))
                #expect(server.outbox.effects(forKey: key) == 1)
                #expect(try await outbox.count() == 0)
            }
        }
    }

    @Test func a400LandsInTheFailedListWithItsBody() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let (outbox, log) = try OutboxFixture(folder: folder).outbox()

                let id = try await outbox.enqueue(
                    applyChange(server.baseURL, seq: 1, query: "status=400"), kind: "apply")
                outbox.start()
                let outcome = try #require(try await log.wait(for: 1).first)
                await outbox.stop()

                #expect(outcome.error?.statusCode == 400)
                let failed = try await outbox.failed()
                #expect(failed.map(\.id) == [id])
                let failure = try #require(failed.first?.failure)
                #expect(failure.statusCode == 400)
                #expect(String(decoding: failure.body ?? Data(), as: UTF8.self).contains("REJECTED"))
                #expect(try await outbox.count() == 0)
                #expect(server.outbox.totalEffects == 0)
                #expect(try await outbox.cancel(id))
                #expect(try await outbox.failed().isEmpty)
            }
        }
    }

    @Test func a503WithRetryAfterWaitsOnTheClockBeforeTheNextAttempt() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let fixture = OutboxFixture(folder: folder)
                let (outbox, log) = try fixture.outbox(policy: OutboxFixture.policy(baseDelay: .milliseconds(10)))

                try await outbox.enqueue(
                    applyChange(server.baseURL, seq: 1, query: "failures=1&retryAfter=7"), kind: "apply")
                outbox.start()
                try await withTimeout(30, "the back-off") { await fixture.clock.waitForSleepers(1) }

                #expect(fixture.log.retries.map(\.delay) == [.seconds(7)])
                #expect(server.outbox.totalEffects == 0)
                fixture.clock.advance(by: .seconds(7))
                let outcome = try #require(try await log.wait(for: 1).first)
                await outbox.stop()
                #expect(outcome.model(as: AppliedChange.self)?.seq == 1)
                #expect(server.outbox.totalEffects == 1)
            }
        }
    }

    @Test func goingOfflineAndBackDrainsEveryQueuedChangeInOrder() async throws {
        try await withTokenFolder { folder in
            let refused = try RefusedPort()
            let baseURL = try #require(URL(string: "http://127.0.0.1:\(refused.port)"))
            let fixture = OutboxFixture(folder: folder)
            let (outbox, log) = try fixture.outbox(policy: OutboxFixture.policy(attempts: 10))
            for seq in 0..<5 { try await outbox.enqueue(applyChange(baseURL, seq: seq), kind: "apply", queue: "q") }

            outbox.start()
            try await withTimeout(30, "the first back-off") { await fixture.clock.waitForSleepers(1) }
            #expect(log.outcomes.isEmpty)
            #expect(try await outbox.count() == 5)
            refused.open()
            let server = try await TestServer.start(port: refused.port)
            fixture.clock.advance(by: .seconds(1))
            let outcomes = try await log.wait(for: 5)
            await outbox.stop()
            await server.stop()

            #expect(outcomes.compactMap { $0.model(as: AppliedChange.self)?.seq } == [0, 1, 2, 3, 4])
            #expect(server.outbox.applied(queue: "q") == [0, 1, 2, 3, 4])
            #expect(try await outbox.count() == 0)
        }
    }

    @Test func aFullOutboxRefusesEnqueueWithATypedError() async throws {
        try await withTokenFolder { folder in
            let baseURL = URL(string: "http://127.0.0.1:1")!
            let fixture = OutboxFixture(folder: folder)
            let store = try FileOutboxStore(url: fixture.journal, maximumEntries: 2, maximumBytes: 4096)
            let (outbox, _) = try fixture.outbox(store: store)

            try await outbox.enqueue(applyChange(baseURL, seq: 0), kind: "apply")
            try await outbox.enqueue(applyChange(baseURL, seq: 1), kind: "apply")
            let full = try await #require(throws: BaseServerError.self) {
                try await outbox.enqueue(applyChange(baseURL, seq: 2), kind: "apply")
            }
            #expect(full.code == .outboxFull)
            #expect(try await outbox.cancel(try #require(try await outbox.pending().first?.id)))
            let tooBig = try await #require(throws: BaseServerError.self) {
                try await outbox.enqueue(
                    applyChange(baseURL, seq: 3, body: ["note": .string(String(repeating: "x", count: 8000))]),
                    kind: "apply")
            }
            #expect(tooBig.code == .outboxFull)
            #expect(try await outbox.count() == 1)
        }
    }

    @Test func aChangeAppliedThenDroppedIsRetriedWithTheSameKeyAndAppliedOnce() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let fixture = OutboxFixture(folder: folder)
                let (outbox, log) = try fixture.outbox(policy: OutboxFixture.policy(baseDelay: .milliseconds(10)))
                let handled = Once<Result<AppliedChange, BaseServerError>>()
                outbox.register("apply", as: AppliedChange.self) { _, result in handled.fire(result) }

                try await outbox.enqueue(applyChange(server.baseURL, seq: 9, query: "drop=1"), kind: "apply")
                let key = try #require(try await outbox.pending().first?.idempotencyKey)
                outbox.start()
                try await withTimeout(30, "the back-off") { await fixture.clock.waitForSleepers(1) }
                fixture.clock.advance(by: .milliseconds(10))
                _ = try await log.wait(for: 1)
                let result = try await withTimeout(30, "the handler") { await handled.value }
                await outbox.stop()

                #expect(try result.get() == AppliedChange(queue: "q", seq: 9))
                #expect(server.outbox.hits(forKey: key) == 2)
                #expect(server.outbox.effects(forKey: key) == 1)
                #expect(server.outbox.applied(queue: "q") == [9])
            }
        }
    }

    @Test func entriesLeftPendingAreSentByTheNextOutboxOnTheSameJournal() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let fixture = OutboxFixture(folder: folder)
                do {
                    let (first, _) = try fixture.outbox()
                    for seq in 0..<3 {
                        try await first.enqueue(applyChange(server.baseURL, queue: "r", seq: seq), kind: "apply")
                    }
                }

                let (second, log) = try fixture.outbox()
                #expect(try await second.count() == 3)
                second.start()
                _ = try await log.wait(for: 3)
                await second.stop()

                #expect(server.outbox.applied(queue: "r") == [0, 1, 2])
                #expect(try await second.count() == 0)
            }
        }
    }
}
