//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// One page an ``OffsetPaginator`` delivers: its items and where they sit in the list.
public struct OffsetPage<Element: Sendable>: Sendable {
    /// The items of the page, in the server's order.
    public var items: [Element]
    /// The offset the page was requested at: the index of its first item in the list.
    public var offset: Int
    /// The number of items in the whole list, when the response gave one.
    public var total: Int?
    /// Whether this is the last page.
    public var isLast: Bool

    /// Creates a page.
    public init(items: [Element], offset: Int, total: Int?, isLast: Bool) {
        self.items = items
        self.offset = offset
        self.total = total
        self.isLast = isLast
    }
}

extension OffsetPage: Equatable where Element: Equatable {}

/// What an offset API answers for one page: the items, and the total count when it gives one.
///
/// ``OffsetPaginator`` knows the end from ``total`` when it is not `nil`, else from a page shorter than asked for.
/// A plain array conforms (with no total), and so does any model with these two properties:
///
/// ```swift
/// struct OrderPage: Decodable, OffsetPageResponse {
///     let items: [Order]
///     let total: Int?          // {"items": [...], "total": 95}
/// }
/// ```
public protocol OffsetPageResponse {
    /// One item.
    associatedtype Element
    /// The items of the page.
    var items: [Element] { get }
    /// The number of items in the whole list, or `nil` when the API does not say.
    var total: Int? { get }
}

extension Array: OffsetPageResponse {
    /// The array itself.
    public var items: [Element] { self }
    /// Always `nil`: an array does not know the list's size.
    public var total: Int? { nil }
}
