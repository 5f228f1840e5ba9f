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

/// `CursorPaginator` against the loopback server's `/feed` (posts 50...1, newest first).
@Suite(.timeLimit(.minutes(3))) struct CursorPaginatorTests {
    @Test func noPostIsSkippedOrRepeatedWhenTheServerInsertsPostsAtTheTopBetweenPages() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let loads = LoadRecorder<String?, FeedPage>()
            let paginator = server.feedPaginator(configuration, loads: loads)
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)

            paginator.moveNext()
            try await log.waitForEvents(1)
            server.insertFeedItems(5)
            paginator.moveNext()
            try await log.waitForEvents(2)
            server.insertFeedItems(3)
            try await pageToTheEnd(paginator, log)

            let ids = log.pages.flatMap(\.items).map(\.id)
            #expect(ids == Array((1...50).reversed()))
            #expect(Set(ids).count == ids.count)
            #expect(loads.positions == [nil, "41", "31", "21", "11"])
            #expect(log.pages.map(\.isLast) == [false, false, false, false, true])
            #expect(!paginator.canMoveNext)
            #expect(!paginator.moveNext())
            #expect(server.hits("GET", "/feed") == 5)
        }
    }

    @Test func resetToNilStartsAgainFromTheNewestPost() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let paginator = server.feedPaginator(configuration)
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)
            paginator.moveNext()
            try await log.waitForEvents(1)
            server.insertFeedItems(2)

            paginator.reset(to: nil)
            paginator.moveNext()
            try await log.waitForEvents(2)

            #expect(log.pages.map { $0.items.first?.id } == [50, 52])
            #expect(log.pages.map(\.cursor) == [nil, nil])
        }
    }

    @Test func aRestoredSnapshotContinuesFromTheSavedCursor() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let first = server.feedPaginator(configuration)
            let firstLog = PageLog(first, expectQueue: configuration.callbackQueue)
            first.moveNext()
            try await firstLog.waitForEvents(1)
            let saved = try JSONEncoder().encode(first.snapshot)

            let snapshot = try JSONDecoder().decode(PaginationSnapshot<String?>.self, from: saved)
            let loads = LoadRecorder<String?, FeedPage>()
            let restored = server.feedPaginator(configuration, restoring: snapshot, loads: loads)
            let log = PageLog(restored, expectQueue: configuration.callbackQueue)
            try await pageToTheEnd(restored, log)

            #expect(snapshot == PaginationSnapshot(start: nil, next: "41", hasMore: true))
            #expect(loads.positions.first == "41")
            #expect(log.pages.flatMap(\.items).map(\.id) == Array((1...40).reversed()))
        }
    }

    @Test(arguments: [
        (sequence: "A,B", pages: [nil, "A"] as [String?]),
        (sequence: "A", pages: [nil]),
    ])
    func aServerThatRepeatsACursorOfThisRunStopsWithRepeatedCursor(sequence: String, pages: [String?]) async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let paginator = server.loopingPaginator(configuration, sequence: sequence)
            let log = PageLog(paginator, expectQueue: configuration.callbackQueue)

            var steps = 0
            while paginator.canMoveNext, steps < 10 {
                steps += 1
                #expect(paginator.moveNext())
                try await log.waitForEvents(steps)
            }

            #expect(log.pages.map(\.cursor) == pages)
            #expect(log.errors.count == 1)
            #expect((log.errors.first as? BaseServerError)?.code == .repeatedCursor, "\(log.errors)")
            #expect(!paginator.canMoveNext)
            #expect(!paginator.moveNext())
            // The page that repeats a cursor was requested, but is not delivered.
            #expect(server.hits("GET", "/cursor-loop") == pages.count + 1)
        }
    }

    @Test func pagesThrowRepeatedCursorAndAResetStartsANewRun() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let paginator = server.loopingPaginator(configuration, sequence: "A,B")
            var cursors: [String?] = []

            await #expect(throws: BaseServerError.self) {
                for try await page in paginator.pages { cursors.append(page.cursor) }
            }
            paginator.reset()
            var again: [String?] = []
            do {
                for try await page in paginator.pages { again.append(page.cursor) }
            } catch let error as BaseServerError {
                #expect(error.code == .repeatedCursor)
            }

            #expect(cursors == [nil, "A"])
            #expect(again == [nil, "A"])
        }
    }
}

extension TestServer {
    /// A cursor paginator over `/cursor-loop`, whose cursors repeat as `sequence` says.
    func loopingPaginator(_ configuration: NetworkConfiguration, sequence: String) -> CursorPaginator<Item> {
        CursorPaginator(queue: configuration.callbackQueue) { cursor in
            var query: [String: QueryValue] = ["sequence": .string(sequence)]
            if let cursor { query["cursor"] = .string(cursor) }
            return TestRequest<FeedPage>(configuration: configuration) { [query] in
                self.get("/cursor-loop", parameters: .query(query))
            }.perform()
        }
    }
}
