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

/// The `pages` async sequence of paginators, against the loopback server.
@Suite(.timeLimit(.minutes(3))) struct PagesSequenceTests {
    @Test func pagesYieldsEveryPageOnceAndEndsAfterTheLast() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let paginator = server.itemsPaginator(configuration, query: ["count": 95])

            let pages = try await withTimeout {
                var pages: [OffsetPage<Item>] = []
                for try await page in paginator.pages { pages.append(page) }
                return pages
            }

            #expect(pages.map(\.items.count) == [20, 20, 20, 20, 15])
            #expect(pages.flatMap(\.items).map(\.id) == Array(1...95))
            #expect(!paginator.canMoveNext)
            #expect(server.hits("GET", "/paged-items") == 5)
        }
    }

    @Test func cancellingTheConsumingTaskCancelsThePageInFlightAndRequestsNothingMore() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let loads = LoadRecorder<Int, ItemPage>()
            let paginator = server.itemsPaginator(
                configuration, query: ["gate": "third-page", "holdAt": 40], loads: loads)
            let received = Locked<[Int]>([])
            let consumer = Task {
                for try await page in paginator.pages { received.withLock { $0.append(page.offset) } }
            }
            try await server.waitForArrivals(at: "third-page", count: 1)

            consumer.cancel()
            let outcome = await consumer.result
            server.release("third-page")
            await drain(configuration.callbackQueue)

            #expect((outcome.error as? BaseServerError)?.code == .cancelled)
            #expect(received.withLock { $0 } == [0, 20])
            #expect(loads.positions == [0, 20, 40])
            #expect(loads.contexts[2].isCancelled)
            #expect(paginator.snapshot.next == 40 && paginator.canMoveNext && !paginator.isLoading)
            #expect(server.hits("GET", "/paged-items") == 3)
        }
    }

    @Test func breakingOutOfTheLoopLeavesNoPageLoadingAndTheNextLoopContinuesThere() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let loads = LoadRecorder<Int, ItemPage>()
            let paginator = server.itemsPaginator(configuration, query: ["count": 95], loads: loads)

            let firstLoop = try await withTimeout {
                var offsets: [Int] = []
                for try await page in paginator.pages {
                    offsets.append(page.offset)
                    if page.offset == 20 { break }
                }
                return offsets
            }
            let loadingAfterBreak = paginator.isLoading
            let requestsAfterBreak = server.hits("GET", "/paged-items")
            let secondLoop = try await withTimeout {
                var offsets: [Int] = []
                for try await page in paginator.pages { offsets.append(page.offset) }
                return offsets
            }

            #expect(firstLoop == [0, 20])
            #expect(!loadingAfterBreak)
            #expect(requestsAfterBreak == 2)
            #expect(secondLoop == [40, 60, 80])
            #expect(loads.positions == [0, 20, 40, 60, 80])
        }
    }

    @Test func aFailedPageEndsTheLoopWithItsErrorAndTheNextLoopRetriesIt() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let paginator = server.itemsPaginator(configuration, query: ["count": 95, "failAt": 40, "failKey": "loop"])
            let offsets = Locked<[Int]>([])

            let firstLoop = await Result {
                try await withTimeout {
                    for try await page in paginator.pages { offsets.withLock { $0.append(page.offset) } }
                }
            }
            try await withTimeout {
                for try await page in paginator.pages { offsets.withLock { $0.append(page.offset) } }
            }

            #expect((firstLoop.error as? BaseServerError)?.statusCode == 503)
            #expect(offsets.withLock { $0 } == [0, 20, 40, 60, 80])
        }
    }
}

extension Result {
    /// The failure, if any.
    var error: Failure? { if case .failure(let error) = self { error } else { nil } }
}
