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

/// Issue 44: what becomes of an entry whose failures could pass but do not, and of one whose
/// credentials are refused.
@Suite(.timeLimit(.minutes(3))) struct OutboxFailureTests {
    @Test func aFailureThatCouldPassGoesToTheFailedListAfterThePolicysAttempts() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let fixture = OutboxFixture(folder: folder)
                let policy = OutboxFixture.policy(attempts: 3, baseDelay: .milliseconds(10))
                let (outbox, log) = try fixture.outbox(policy: policy)

                let id = try await outbox.enqueue(
                    applyChange(server.baseURL, seq: 1, query: "failures=10"), kind: "apply")
                outbox.start()
                for wait in 1...2 {
                    try await withTimeout(30, "back-off \(wait)") { await fixture.clock.waitForSleepers(1) }
                    fixture.clock.advance(by: .seconds(1))
                }
                let outcome = try #require(try await log.wait(for: 1).first)
                await outbox.stop()

                #expect(outcome.error?.statusCode == 503)
                #expect(try await outbox.failed().map(\.id) == [id])
                #expect(try await outbox.failed().first?.failure?.statusCode == 503)
                #expect(try await outbox.failed().first?.attempts == 3)
                #expect(fixture.log.retries.count == 2)
                #expect(server.outbox.totalEffects == 0)
            }
        }
    }

    @Test func a401ThatNoRefreshFixesHoldsTheQueueAndKeepsTheEntryPending() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let fixture = OutboxFixture(folder: folder)
                let (outbox, log) = try fixture.outbox()

                try await outbox.enqueue(applyChange(server.baseURL, seq: 1, query: "status=401"), kind: "apply")
                outbox.start()
                try await withTimeout(30, "the held queue's wait") { await fixture.clock.waitForSleepers(1) }

                #expect(try await outbox.count() == 1)
                #expect(try await outbox.pending().first?.attempts == 0, "a held send gives its attempt back")
                #expect(try await outbox.failed().isEmpty)
                #expect(log.outcomes.isEmpty)
                await outbox.stop()
                #expect(try await outbox.count() == 1)
            }
        }
    }
}
