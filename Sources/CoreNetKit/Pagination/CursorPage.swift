//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// One page a ``CursorPaginator`` delivers: its items and the cursors around it.
public struct CursorPage<Element: Sendable>: Sendable {
    /// The items of the page, in the server's order.
    public var items: [Element]
    /// The cursor the page was requested with; `nil` for the first page.
    public var cursor: String?
    /// The cursor of the next page; `nil` on the last page.
    public var nextCursor: String?

    /// Whether this is the last page.
    public var isLast: Bool { nextCursor == nil }

    /// Creates a page.
    public init(items: [Element], cursor: String?, nextCursor: String?) {
        self.items = items
        self.cursor = cursor
        self.nextCursor = nextCursor
    }
}

extension CursorPage: Equatable where Element: Equatable {}

/// What a cursor API answers for one page: the items and the cursor of the next page.
///
/// A `nil` or empty ``nextCursor`` is the end. Cursors that are not strings (numbers, ids) are passed as their
/// text; when the API sends a number, decode it into its text:
///
/// ```swift
/// struct FeedPage: Decodable, CursorPageResponse {
///     let items: [Post]
///     let nextCursor: String?  // {"items": [...], "next": 41}
///
///     private enum CodingKeys: String, CodingKey { case items, next }
///
///     init(from decoder: any Decoder) throws {
///         let container = try decoder.container(keyedBy: CodingKeys.self)
///         items = try container.decode([Post].self, forKey: .items)
///         nextCursor = try container.decodeIfPresent(Int.self, forKey: .next).map(String.init)
///     }
/// }
/// ```
public protocol CursorPageResponse {
    /// One item.
    associatedtype Element
    /// The items of the page.
    var items: [Element] { get }
    /// The cursor of the next page; `nil` or empty on the last page.
    var nextCursor: String? { get }
}
