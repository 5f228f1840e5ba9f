//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Dispatch
import Foundation
import Testing

@testable import CoreNetKit

/// One item of `/items`, `/paged-items` and `/feed`.
struct Item: Decodable, Sendable, Equatable {
    let id: Int
    let title: String
}

/// `/items` and `/paged-items`: `{"items": [...], "total": 95}` (`total` absent with `total=false`).
struct ItemPage: Decodable, Sendable, OffsetPageResponse {
    let items: [Item]
    let total: Int?
}

/// `/feed`: `{"items": [...], "nextCursor": "41"}`.
struct FeedPage: Decodable, Sendable, CursorPageResponse {
    let items: [Item]
    let nextCursor: String?
}

/// Records every event a paginator delivers, with the queue it ran on, and lets a test await
/// the n-th one.
final class PageLog<Page: Sendable>: Sendable {
    enum Event: Sendable {
        case page(Page)
        case failure(any Error)
    }

    private struct State {
        var events: [Event] = []
        var waiters: [(count: Int, once: Once<Void>)] = []
    }
    private let state = Locked(State())
    private let queueKey = DispatchSpecificKey<String>()
    private let wrongQueue = Locked(0)

    /// Attaches handlers to `paginator`, checking that they run on `queue`.
    init<Paginator: PagingRequestContext>(_ paginator: Paginator, expectQueue queue: DispatchQueue)
    where Paginator.Model == Page {
        queue.setSpecific(key: queueKey, value: "expected")
        paginator
            .onSuccess { [self] in record(.page($0)) }
            .onError { [self] in record(.failure($0)) }
    }

    private func record(_ event: Event) {
        if DispatchQueue.getSpecific(key: queueKey) == nil { wrongQueue.withLock { $0 += 1 } }
        let reached: [Once<Void>] = state.withLock { state in
            state.events.append(event)
            let count = state.events.count
            let reached = state.waiters.filter { $0.count <= count }.map(\.once)
            state.waiters.removeAll { $0.count <= count }
            return reached
        }
        for once in reached { once.fire(()) }
    }

    /// Every event so far, in order.
    var all: [Event] { state.withLock { $0.events } }
    /// The pages delivered so far, in order.
    var pages: [Page] { all.compactMap { if case .page(let page) = $0 { page } else { nil } } }
    /// The errors delivered so far, in order.
    var errors: [any Error] { all.compactMap { if case .failure(let error) = $0 { error } else { nil } } }
    /// How many handlers ran off the expected queue.
    var handlersOffQueue: Int { wrongQueue.withLock { $0 } }

    /// Awaits the `count`-th event (bounded).
    func waitForEvents(_ count: Int, _ seconds: Double = 30) async throws {
        let once = Once<Void>()
        let reached: Bool = state.withLock { state in
            if state.events.count >= count { return true }
            state.waiters.append((count, once))
            return false
        }
        if reached { return }
        try await withTimeout(seconds, "\(count) paging event(s)") { await once.value }
    }
}

/// The positions a paginator's loader was called with, and the contexts it returned.
final class LoadRecorder<Position: Sendable, Response: Sendable>: Sendable {
    private let entries = Locked<[(position: Position, context: ActiveRequestContext<Response>)]>([])

    /// Records one call and passes `context` through.
    func record(_ position: Position, _ context: ActiveRequestContext<Response>) -> ActiveRequestContext<Response> {
        entries.withLock { $0.append((position, context)) }
        return context
    }

    var positions: [Position] { entries.withLock { $0.map(\.position) } }
    var contexts: [ActiveRequestContext<Response>] { entries.withLock { $0.map(\.context) } }
}

extension TestServer {
    /// An offset paginator over `/paged-items`, with `query` added to every page request.
    func itemsPaginator(
        _ configuration: NetworkConfiguration, pageSize: Int = 20, query: [String: QueryValue],
        restoring snapshot: PaginationSnapshot<Int>? = nil, loads: LoadRecorder<Int, ItemPage> = LoadRecorder()
    ) -> OffsetPaginator<Item> {
        OffsetPaginator(pageSize: pageSize, restoring: snapshot, queue: configuration.callbackQueue) { offset, limit in
            let request = TestRequest<ItemPage>(configuration: configuration) {
                self.get(
                    "/paged-items",
                    parameters: .query(query.merging(["offset": .int(offset), "limit": .int(limit)]) { $1 }))
            }
            return loads.record(offset, request.perform())
        }
    }

    /// A cursor paginator over `/feed`, ten posts a page.
    func feedPaginator(
        _ configuration: NetworkConfiguration, restoring snapshot: PaginationSnapshot<String?>? = nil,
        loads: LoadRecorder<String?, FeedPage> = LoadRecorder()
    ) -> CursorPaginator<Item> {
        CursorPaginator(restoring: snapshot, queue: configuration.callbackQueue) { cursor in
            var query: [String: QueryValue] = ["limit": 10]
            if let cursor { query["cursor"] = .string(cursor) }
            let request = TestRequest<FeedPage>(configuration: configuration) { [query] in
                self.get("/feed", parameters: .query(query))
            }
            return loads.record(cursor, request.perform())
        }
    }
}

/// Calls `moveNext()` and awaits each event until the paginator reaches its end (at most 100 pages).
func pageToTheEnd<Position, Page>(_ paginator: BaseIteratableContext<Position, Page>, _ log: PageLog<Page>) async throws
{
    var steps = 0
    while paginator.canMoveNext {
        steps += 1
        guard steps <= 100 else { throw TimedOut(what: "the last page within 100 pages") }
        let before = log.all.count
        #expect(paginator.moveNext())
        try await log.waitForEvents(before + 1)
    }
}
