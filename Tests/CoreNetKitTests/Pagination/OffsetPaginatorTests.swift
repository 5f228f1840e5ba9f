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

/// `OffsetPaginator` against the loopback server's `/paged-items`.
@Suite(.timeLimit(.minutes(3))) struct OffsetPaginatorTests {
    @Test(arguments: [true, false])
    func ninetyFiveItemsComeInPagesOf20_20_20_20_15AndPagingStopsAfterTheLast(serverSendsTotal: Bool) async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let loads = LoadRecorder<Int, ItemPage>()
            let paginator = server.itemsPaginator(
                configuration, query: ["count": 95, "total": .bool(serverSendsTotal)], loads: loads)
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)
            var canMoveNextAfterEachPage: [Bool] = []

            for pageNumber in 1...5 {
                #expect(paginator.moveNext())
                try await log.waitForEvents(pageNumber)
                canMoveNextAfterEachPage.append(paginator.canMoveNext)
            }
            let movedAtTheEnd = paginator.moveNext()
            await drain(configuration.callbackQueue)

            #expect(log.pages.map(\.items.count) == [20, 20, 20, 20, 15])
            #expect(log.pages.flatMap(\.items).map(\.id) == Array(1...95))
            #expect(log.pages.map(\.offset) == [0, 20, 40, 60, 80])
            #expect(log.pages.map(\.isLast) == [false, false, false, false, true])
            #expect(canMoveNextAfterEachPage == [true, true, true, true, false])
            #expect(movedAtTheEnd == false)
            #expect(loads.positions == [0, 20, 40, 60, 80])
            #expect(server.hits("GET", "/paged-items") == 5)
            #expect(log.handlersOffQueue == 0)
        }
    }

    @Test(arguments: [(serverSendsTotal: true, requests: 5), (serverSendsTotal: false, requests: 6)])
    func aListThatFillsItsLastPageEndsByTheTotalOrByAnEmptyPage(serverSendsTotal: Bool, requests: Int) async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let paginator = server.itemsPaginator(
                configuration, query: ["count": 100, "total": .bool(serverSendsTotal)])
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)

            try await pageToTheEnd(paginator, log)

            #expect(log.pages.flatMap(\.items).map(\.id) == Array(1...100))
            #expect(log.pages.count == requests)
            #expect(log.pages.last?.isLast == true)
            #expect(server.hits("GET", "/paged-items") == requests)
        }
    }

    @Test func aPlainArrayModelPagesUntilAShortPage() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let paginator = OffsetPaginator(pageSize: 20, queue: configuration.callbackQueue) { offset, limit in
                TestRequest<[Item]>(configuration: configuration, keyPath: "items") {
                    server.get(
                        "/items", parameters: .query(["offset": .int(offset), "limit": .int(limit), "count": 45]))
                }.perform()
            }
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)

            try await pageToTheEnd(paginator, log)

            #expect(log.pages.map(\.items.count) == [20, 20, 5])
            #expect(log.pages.map(\.total) == [nil, nil, nil])
            #expect(server.hits("GET", "/items") == 3)
        }
    }

    @Test func aPageNumberPaginatorOnBaseIteratableContextPagesToAnEmptyPage() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let paginator = BaseIteratableContext<Int, [Item]>(start: 1, queue: configuration.callbackQueue) { page in
                TestRequest<[Item]>(configuration: configuration, keyPath: "items") {
                    server.get(
                        "/items", parameters: .query(["offset": .int((page - 1) * 20), "limit": 20, "count": 40]))
                }.perform().map { items in LoadedPage(items, next: page + 1, hasMore: !items.isEmpty) }
            }
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)

            try await pageToTheEnd(paginator, log)

            #expect(log.pages.map(\.count) == [20, 20, 0])
            #expect(paginator.snapshot == PaginationSnapshot(start: 1, next: 4, hasMore: false))
        }
    }

    @Test func tenMoveNextCallsWhileAPageLoadsRequestThatPageOnce() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let loads = LoadRecorder<Int, ItemPage>()
            let paginator = server.itemsPaginator(
                configuration, query: ["gate": "first-page", "holdAt": 0], loads: loads)
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)

            let started = (1...10).map { _ in paginator.moveNext() }
            try await server.waitForArrivals(at: "first-page", count: 1)
            let loadingWhileHeld = paginator.isLoading
            server.release("first-page")
            try await log.waitForEvents(1)
            await drain(configuration.callbackQueue)
            let eventsForTheFirstPage = log.all.count
            #expect(paginator.moveNext())
            try await log.waitForEvents(2)

            #expect(started == [true] + Array(repeating: false, count: 9))
            #expect(loadingWhileHeld)
            #expect(eventsForTheFirstPage == 1)
            #expect(loads.positions == [0, 20])
            #expect(log.pages.map(\.offset) == [0, 20])
            #expect(server.hits("GET", "/paged-items") == 2)
        }
    }

    @Test func aFailedPageIsReportedKeepsThePositionAndTheNextMoveNextAsksForItAgain() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let loads = LoadRecorder<Int, ItemPage>()
            let paginator = server.itemsPaginator(
                configuration, query: ["count": 95, "failAt": 20, "failKey": "retry"], loads: loads)
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)

            paginator.moveNext()
            try await log.waitForEvents(1)
            paginator.moveNext()
            try await log.waitForEvents(2)
            let afterFailure = (
                next: paginator.snapshot.next, canMoveNext: paginator.canMoveNext, loading: paginator.isLoading
            )
            try await pageToTheEnd(paginator, log)

            let error = try #require(log.errors.first as? BaseServerError)
            #expect(error.statusCode == 503)
            #expect(error.serverCode == "UNAVAILABLE")
            #expect(log.errors.count == 1)
            guard case .failure = log.all[1] else {
                Issue.record("the second event must be the failure")
                return
            }
            #expect(afterFailure.next == 20 && afterFailure.canMoveNext && !afterFailure.loading)
            #expect(loads.positions == [0, 20, 20, 40, 60, 80])
            #expect(log.pages.flatMap(\.items).map(\.id) == Array(1...95))
        }
    }

    @Test(arguments: [0, 60])
    func resetWhileAPageLoadsNeverDeliversThatPageAndRestartsFromTheGivenOffset(resetTo: Int) async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let loads = LoadRecorder<Int, ItemPage>()
            let paginator = server.itemsPaginator(
                configuration, query: ["gate": "second-page", "holdAt": 20], loads: loads)
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)
            paginator.moveNext()
            try await log.waitForEvents(1)
            paginator.moveNext()
            try await server.waitForArrivals(at: "second-page", count: 1)
            let stale = loads.contexts[1]

            paginator.reset(to: resetTo)
            let movedAfterReset = paginator.moveNext()
            try await log.waitForEvents(2)
            server.release("second-page")
            _ = await stale.result
            await drain(configuration.callbackQueue)

            #expect(stale.isCancelled)
            #expect(movedAfterReset)
            #expect(loads.positions == [0, 20, resetTo])
            #expect(log.pages.map(\.offset) == [0, resetTo])
            #expect(log.pages.last?.items.first?.id == resetTo + 1)
            #expect(log.all.count == 2)
        }
    }

    @Test func aRestoredSnapshotContinuesFromTheSavedOffset() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let first = server.itemsPaginator(configuration, query: ["count": 95])
            let firstLog = PageLog(first, expectQueue: configuration.callbackQueue)
            first.moveNext()
            try await firstLog.waitForEvents(1)
            first.moveNext()
            try await firstLog.waitForEvents(2)
            let saved = try JSONEncoder().encode(first.snapshot)

            let snapshot = try JSONDecoder().decode(PaginationSnapshot<Int>.self, from: saved)
            let loads = LoadRecorder<Int, ItemPage>()
            let restored = server.itemsPaginator(configuration, query: ["count": 95], restoring: snapshot, loads: loads)
            let log = PageLog(restored, expectQueue: configuration.callbackQueue)
            try await pageToTheEnd(restored, log)

            #expect(snapshot == PaginationSnapshot(start: 0, next: 40, hasMore: true))
            #expect(loads.positions == [40, 60, 80])
            #expect(log.pages.flatMap(\.items).map(\.id) == Array(41...95))
            #expect(!restored.canMoveNext)
        }
    }

    @Test func aSnapshotTakenWhileAPageLoadsRestoresToThatPage() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let first = server.itemsPaginator(configuration, query: ["gate": "snapshot", "holdAt": 20])
            let firstLog = PageLog(first, expectQueue: configuration.callbackQueue)
            first.moveNext()
            try await firstLog.waitForEvents(1)
            first.moveNext()
            try await server.waitForArrivals(at: "snapshot", count: 1)

            let snapshot = first.snapshot
            first.cancel()
            server.release("snapshot")
            let loads = LoadRecorder<Int, ItemPage>()
            let restored = server.itemsPaginator(configuration, query: [:], restoring: snapshot, loads: loads)
            let log = PageLog(restored, expectQueue: configuration.callbackQueue)
            restored.moveNext()
            try await log.waitForEvents(1)

            #expect(snapshot.next == 20)
            #expect(loads.positions == [20])
            #expect(log.pages.first?.items.first?.id == 21)
        }
    }
}
