//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// One loaded page and where the next one starts: what the page loader of a ``BaseIteratableContext`` delivers.
///
/// ``OffsetPaginator`` and ``CursorPaginator`` build it for you; build it for other kinds, such as page numbers:
///
/// ```swift
/// let paginator = BaseIteratableContext<Int, [Order]>(start: 1) { page in
///     service.orders(page: page).map { orders in
///         LoadedPage(orders, next: page + 1, hasMore: !orders.isEmpty)
///     }
/// }
/// ```
public struct LoadedPage<Page: Sendable, Position: Sendable>: Sendable {
    /// The page to deliver.
    public var page: Page
    /// Where the next page starts; kept even when `hasMore` is `false`.
    public var next: Position
    /// Whether a next page exists; `false` ends the paging.
    public var hasMore: Bool

    /// Creates a loaded page.
    public init(_ page: Page, next: Position, hasMore: Bool) {
        self.page = page
        self.next = next
        self.hasMore = hasMore
    }
}
