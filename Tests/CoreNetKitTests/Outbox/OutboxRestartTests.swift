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

/// Issue 44: results after a restart, and the list, count and cancel of entries.
@Suite(.timeLimit(.minutes(3))) struct OutboxRestartTests {
    @Test func anOutcomeSettledButNotDeliveredIsDeliveredByTheNextOutboxWithItsModel() async throws {
        try await withTokenFolder { folder in
            let fixture = OutboxFixture(folder: folder)
            let request = applyChange(URL(string: "http://127.0.0.1:1")!, seq: 4)
            do {
                // A process that recorded the answer and died before it told anyone.
                let (outbox, _) = try fixture.outbox()
                try await outbox.enqueue(request, kind: "apply")
                let settled = try await outbox.store.sendNext { _ in
                    .succeeded(OutboxResponse(statusCode: 201, body: Data(#"{"queue":"q","seq":4}"#.utf8)))
                }
                #expect(settled?.state == .succeeded)
            }

            let (outbox, log) = try fixture.outbox()
            let handled = Once<Result<AppliedChange, BaseServerError>>()
            outbox.register("apply", as: AppliedChange.self) { _, result in handled.fire(result) }
            outbox.start()
            let outcome = try #require(try await log.wait(for: 1).first)
            let result = try await withTimeout(30, "the handler") { await handled.value }
            await outbox.stop()

            #expect(outcome.model(as: AppliedChange.self) == AppliedChange(queue: "q", seq: 4))
            #expect(try result.get() == AppliedChange(queue: "q", seq: 4))
            try await withTimeout(30, "the delivery record") {
                while try await outbox.store.undelivered().isEmpty == false { await Task.yield() }
            }
        }
    }

    @Test func pendingEntriesAreListedCountedAndCancelledByIdentifierButNotWhileBeingSent() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let (outbox, log) = try OutboxFixture(folder: folder).outbox()
                let held = try await outbox.enqueue(
                    applyChange(server.baseURL, queue: "a", seq: 0, query: "gate=outbox-held"), kind: "apply",
                    queue: "a")
                let second = try await outbox.enqueue(
                    applyChange(server.baseURL, queue: "a", seq: 1), kind: "apply", queue: "a")
                let third = try await outbox.enqueue(
                    applyChange(server.baseURL, queue: "a", seq: 2), kind: "apply", queue: "a")

                #expect(try await outbox.pending().map(\.id) == [held, second, third])
                #expect(try await outbox.count() == 3)
                outbox.start()
                try await server.waitForArrivals(at: "outbox-held", count: 1, timeout: .seconds(30))

                #expect(try await !outbox.cancel(held), "the entry being sent may have reached the server")
                #expect(try await outbox.cancel(second))
                #expect(try await !outbox.cancel(second))
                #expect(try await outbox.pending().map(\.id) == [held, third])
                server.release("outbox-held")
                _ = try await log.wait(for: 2)
                await outbox.stop()

                #expect(server.outbox.applied(queue: "a") == [0, 2])
                #expect(try await outbox.count() == 0)
            }
        }
    }
}
