//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import Testing

@testable import CoreNetKit

/// Pure paginator logic: page contexts fed by the test, no I/O.
@Suite(.timeLimit(.minutes(3))) struct PaginatorLogicTests {
    let queue = DispatchQueue(label: "tests.paging")

    /// An offset paginator over integers whose page contexts the test feeds by hand.
    func manualPaginator(pageSize: Int = 2) -> (
        OffsetPaginator<Int>, Locked<[(offset: Int, context: HandleRequestContext<[Int]>)]>
    ) {
        let loads = Locked<[(offset: Int, context: HandleRequestContext<[Int]>)]>([])
        let paginator = OffsetPaginator<Int>(pageSize: pageSize, queue: queue) { [queue] offset, _ in
            let context = HandleRequestContext<[Int]>(queue: queue)
            loads.withLock { $0.append((offset, context)) }
            return context
        }
        return (paginator, loads)
    }

    @Test func aPageThatArrivedButWasNotYetHandedToHandlersIsDroppedByAReset() async throws {
        let (paginator, loads) = manualPaginator()
        let log = PageLog(paginator, expectQueue: queue)
        paginator.moveNext()

        queue.sync {
            loads.withLock { $0[0].context }.emit(data: [1, 2])
            paginator.reset(to: 0)
        }
        paginator.moveNext()
        loads.withLock { $0[1].context }.emit(data: [10, 11])
        try await log.waitForEvents(1)
        await drain(queue)

        #expect(log.pages.map(\.items) == [[10, 11]])
        #expect(loads.withLock { $0.map(\.offset) } == [0, 0])
    }

    @Test func aPageContextCancelledByItsOwnerIsReportedAsCancelledAndTheNextMoveNextRetriesIt() async throws {
        let (paginator, loads) = manualPaginator()
        let log = PageLog(paginator, expectQueue: queue)
        paginator.moveNext()

        loads.withLock { $0[0].context }.cancel()
        try await log.waitForEvents(1)
        let moved = paginator.moveNext()

        #expect((log.errors.first as? BaseServerError)?.code == .cancelled)
        #expect(moved)
        #expect(loads.withLock { $0.map(\.offset) } == [0, 0])
    }

    @Test func cancelStopsThePageInFlightWithoutAnEventAndKeepsThePosition() async throws {
        let (paginator, loads) = manualPaginator()
        let log = PageLog(paginator, expectQueue: queue)
        paginator.moveNext()
        let first = loads.withLock { $0[0].context }

        paginator.cancel()
        first.emit(data: [1, 2])
        paginator.moveNext()
        loads.withLock { $0[1].context }.emit(data: [1, 2])
        try await log.waitForEvents(1)
        await drain(queue)

        #expect(first.isCancelled)
        #expect(log.all.count == 1)
        #expect(loads.withLock { $0.map(\.offset) } == [0, 0])
    }

    @Test func releasingThePaginatorCancelsThePageInFlight() {
        let loads: Locked<[(offset: Int, context: HandleRequestContext<[Int]>)]>
        do {
            let (paginator, recorded) = manualPaginator()
            paginator.moveNext()
            loads = recorded
        }

        let context = loads.withLock { $0[0].context }

        #expect(context.isCancelled)
    }

    @Test(arguments: [0, -1])
    func aPageSizeBelowOneFailsThePageWithInvalidRequestAndRequestsNothing(pageSize: Int) async throws {
        let (paginator, loads) = manualPaginator(pageSize: pageSize)
        let log = PageLog(paginator, expectQueue: queue)

        paginator.moveNext()
        try await log.waitForEvents(1)

        #expect((log.errors.first as? BaseServerError)?.code == .invalidRequest)
        #expect(loads.withLock { $0.isEmpty })
        #expect(paginator.canMoveNext && !paginator.isLoading)
    }

    @Test func aNegativeResetOffsetFailsThePageWithInvalidRequest() async throws {
        let (paginator, loads) = manualPaginator()
        let log = PageLog(paginator, expectQueue: queue)

        paginator.reset(to: -20)
        paginator.moveNext()
        try await log.waitForEvents(1)

        #expect((log.errors.first as? BaseServerError)?.code == .invalidRequest)
        #expect(loads.withLock { $0.isEmpty })
    }

    @Test(arguments: [
        (items: 20, total: 95 as Int?, offset: 60, hasMore: true),
        (items: 15, total: 95 as Int?, offset: 80, hasMore: false),
        (items: 10, total: 95 as Int?, offset: 0, hasMore: true),  // the server capped the page
        (items: 20, total: 100 as Int?, offset: 80, hasMore: false),
        (items: 0, total: 95 as Int?, offset: 20, hasMore: false),  // empty ends, whatever the total
        (items: 20, total: nil, offset: 80, hasMore: true),
        (items: 19, total: nil, offset: 80, hasMore: false),
        (items: 0, total: nil, offset: 100, hasMore: false),
    ])
    func offsetEndComesFromTheTotalWhenGivenElseFromAShortOrEmptyPage(
        items: Int, total: Int?, offset: Int, hasMore: Bool
    ) {
        let response = TotalPage(items: Array(repeating: 1, count: items), total: total)

        let loaded = OffsetPaginator<Int>.loaded(response, offset: offset, limit: 20)

        #expect(loaded.hasMore == hasMore)
        #expect(loaded.next == offset + items)
        #expect(loaded.page.isLast == !hasMore)
        #expect(loaded.page.total == total)
    }

    @Test(arguments: [
        (cursor: nil as String?, next: "41" as String?, expected: "41" as String?),
        (cursor: "41", next: nil, expected: nil),
        (cursor: "41", next: "", expected: nil),
    ])
    func cursorPagingEndsOnANilOrEmptyNextCursor(cursor: String?, next: String?, expected: String?) {
        let response = CursorResponse(items: [1, 2], nextCursor: next)

        let loaded = CursorPaginator<Int>.loaded(response, cursor: cursor)

        #expect(loaded.next == expected)
        #expect(loaded.hasMore == (expected != nil))
        #expect(loaded.page.cursor == cursor)
        #expect(loaded.page.isLast == (expected == nil))
    }
}

@Suite(.timeLimit(.minutes(3))) struct CursorHistoryTests {
    @Test func aCursorGivenTwiceInARunIsARepeatButTheSamePageReadAgainIsNot() {
        var history = CursorHistory()
        history.restart(at: nil)
        let run = history.run

        let accepted = [
            history.accept("A", at: nil, inRun: run),
            history.accept("A", at: nil, inRun: run),  // the cached answer, then the server's
            history.accept("B", at: "A", inRun: run),
            history.accept("A", at: "B", inRun: run),
            history.accept("B", at: "B", inRun: run),
        ]

        #expect(accepted == [true, true, true, false, false])
    }

    @Test func aNewRunForgetsTheCursorsAndIgnoresResultsOfTheOldOne() {
        var history = CursorHistory()
        history.restart(at: "S")
        let old = history.run
        let repeatedStart = history.accept("S", at: "S", inRun: old)

        history.restart(at: nil)
        let inNewRun = history.accept("S", at: nil, inRun: history.run)
        let fromOldRun = history.accept("S", at: "S", inRun: old)

        #expect(!repeatedStart)
        #expect(inNewRun)
        #expect(fromOldRun)
    }

    @Test func atMostTheLimitOfCursorsIsRemembered() {
        var history = CursorHistory()
        history.restart(at: nil)
        let run = history.run
        var previous: String?
        var allAccepted = true
        for index in 0...CursorHistory.limit {
            allAccepted = history.accept("c\(index)", at: previous, inRun: run) && allAccepted
            previous = "c\(index)"
        }

        let oldestForgotten = history.accept("c0", at: previous, inRun: run)
        let newestKept = history.accept("c\(CursorHistory.limit)", at: "c0", inRun: run)

        #expect(allAccepted)
        #expect(oldestForgotten)
        #expect(!newestKept)
    }
}

private struct TotalPage: OffsetPageResponse, Sendable {
    let items: [Int]
    let total: Int?
}

private struct CursorResponse: CursorPageResponse, Sendable {
    let items: [Int]
    let nextCursor: String?
}
