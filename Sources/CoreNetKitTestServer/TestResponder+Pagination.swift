//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// Pagination routes: offset-based `/items` and cursor-based `/feed`.
extension TestResponder {
    /// `GET /items?offset=0&limit=20&count=95&total=true`: ids `offset+1...min(offset+limit,count)`.
    static func items(query: QueryItems) throws -> Response {
        let offset = try query.int("offset", default: 0, in: 0...Int(Int32.max))
        let limit = try query.int("limit", default: 20, in: 0...Int(Int32.max))
        let count = try query.int("count", default: 95, in: 0...10_000_000)
        let includeTotal = try query.bool("total", default: true)
        let cappedLimit = min(limit, 1000)
        let upper = min(offset + cappedLimit, count)
        let items: [JSON] =
            offset < upper
            ? (offset + 1...upper).map { .object([("id", .int($0)), ("title", .string("Item \($0)"))]) }
            : []
        var members: [(String, JSON)] = [("items", .array(items))]
        if includeTotal {
            members.append(("total", .int(count)))
        }
        return Self.json(.object(members))
    }

    /// `GET /feed?cursor=<id>&limit=10`: newest first; a page holds the `limit` ids below the cursor
    /// (from the top without one, or with an empty one); `nextCursor` is the last id, or null when nothing is left below.
    func feed(query: QueryItems) throws -> Response {
        let limit = min(try query.int("limit", default: 10, in: 0...Int(Int32.max)), 1000)
        let cursor =
            query["cursor"]?.isEmpty ?? true ? Int.max : try query.int("cursor", default: Int.max, in: 0...Int.max)
        let top = min(self.core.feedMaxID(), cursor == Int.max ? Int.max : cursor - 1)
        let bottom = max(1, top - limit + 1)
        let ids: [Int] = limit > 0 && top >= 1 ? Array((bottom...top).reversed()) : []
        let items: [JSON] = ids.map { .object([("id", .int($0)), ("title", .string("Post \($0)"))]) }
        let nextCursor: JSON = if let last = ids.last, last > 1 { .string(String(last)) } else { .null }
        return Self.json(.object([("items", .array(items)), ("nextCursor", nextCursor)]))
    }

    /// `GET /cursor-loop?sequence=A,B&cursor=<c>`: a cursor API that loops. The page at no cursor
    /// names the first cursor of `sequence` as its next; the page at a cursor names the one after
    /// it in `sequence`, wrapping around (`A,B`: A, B, A, B, …; `A`: A, A, …).
    static func cursorLoop(query: QueryItems) -> Response {
        let sequence = (query["sequence"] ?? "A").split(separator: ",").map(String.init)
        let cursor = query["cursor"]
        let next: String
        if let cursor, let index = sequence.firstIndex(of: cursor) {
            next = sequence[(index + 1) % sequence.count]
        } else {
            next = sequence.first ?? "A"
        }
        let item = JSON.object([("id", .int(1)), ("title", .string("At \(cursor ?? "top")"))])
        return Self.json(.object([("items", .array([item])), ("nextCursor", .string(next))]))
    }
}
