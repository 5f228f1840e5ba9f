//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Foundation

/// One item of the demo API's `/items` list.
struct CatalogItem: Decodable, Sendable {
    let id: Int
    let title: String
}

/// A page of `/items`: `{"items": [...], "total": 95}`.
struct CatalogPage: Decodable, Sendable, OffsetPageResponse {
    let items: [CatalogItem]
    let total: Int?
}

/// A page of `/feed`: `{"items": [...], "nextCursor": "41"}`.
struct FeedPage: Decodable, Sendable, CursorPageResponse {
    let items: [CatalogItem]
    let nextCursor: String?
}

/// `GET /items?offset=&limit=`.
final class GetCatalogPageRequest: BaseServerRequest<CatalogPage>, @unchecked Sendable {
    private let offset: Int
    private let limit: Int
    init(offset: Int, limit: Int) {
        self.offset = offset
        self.limit = limit
    }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(
            method: .get, baseUrl: API.base, relativeUrl: "/items",
            parameters: .query(["offset": .int(offset), "limit": .int(limit)]))
    }
}

/// `GET /feed?cursor=&limit=10`.
final class GetFeedPageRequest: BaseServerRequest<FeedPage>, @unchecked Sendable {
    private let cursor: String?
    init(cursor: String?) { self.cursor = cursor }

    override func createAsyncServerRequest() -> ServerRequest {
        var query: [String: QueryValue] = ["limit": 10]
        if let cursor { query["cursor"] = .string(cursor) }
        return ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/feed", parameters: .query(query))
    }
}

/// Pages through the demo API's lists: offsets with `moveNext()` and handlers, cursors with
/// `for try await`, and a snapshot to come back later.
func runPaginationDemo(server: TestServer) async throws {
    section("Offset paging: moveNext() and one onSuccess per page")
    let catalog = OffsetPaginator(pageSize: 20) { offset, limit in
        GetCatalogPageRequest(offset: offset, limit: limit).perform()
    }
    let (events, delivered) = AsyncStream.makeStream(of: Void.self)
    catalog
        .onSuccess { page in
            let ids = page.items.map(\.id)
            print(
                "page at offset \(page.offset): \(ids.count) items, #\(ids.first ?? 0)…#\(ids.last ?? 0)"
                    + " of \(page.total ?? 0)\(page.isLast ? " (last)" : "")")
            delivered.yield()
        }
        .onError { error in
            print("onError: \(error.localizedDescription)")
            delivered.yield()
        }
    var pagesArrived = events.makeAsyncIterator()
    let started = catalog.moveNext()
    let again = catalog.moveNext()  // the first page is still loading: ignored
    print("moveNext() → \(started); again while the page loads → \(again): nothing requested")
    await pagesArrived.next()
    while catalog.moveNext() {
        await pagesArrived.next()
    }
    print("canMoveNext: \(catalog.canMoveNext); server saw GET /items \(server.hits("GET", "/items")) times")

    section("Cursor paging: for try await page in paginator.pages")
    let feed = CursorPaginator { cursor in GetFeedPageRequest(cursor: cursor).perform() }
    var seen = 0
    for try await page in feed.pages {
        seen += page.items.count
        print(
            "cursor \(page.cursor ?? "nil"): posts \(page.items.first?.id ?? 0)…\(page.items.last?.id ?? 0),"
                + " next cursor \(page.nextCursor ?? "nil")")
        if page.cursor == nil {
            server.insertFeedItems(3)
            print("(the server inserts 3 posts at the top: the cursor keeps the next page exact)")
        }
        if seen >= 30 { break }
    }
    let snapshot = String(decoding: try JSONEncoder().encode(feed.snapshot), as: UTF8.self)
    print("stopped after \(seen) posts; snapshot to come back later: \(snapshot)")
}
