//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// Pages through an offset/limit API (`?offset=40&limit=20`, `skip`/`take`): each page starts where the last ended.
///
/// The end is known from ``OffsetPageResponse/total`` when the response has one, else from a page shorter than
/// ``pageSize`` (an empty one included). Positions are item offsets: `reset(to: 0)` starts over.
///
/// ```swift
/// let paginator = OffsetPaginator(pageSize: 20) { offset, limit in
///     ordersService.orders(skip: offset, take: limit)      // ActiveRequestContext<OrderPage>
/// }
/// paginator
///     .onSuccess { page in append(page.items) }             // once per page, on the main queue
///     .onError { error in present(error) }                  // once per failed page
/// paginator.moveNext()                                      // items 0..<20
/// ```
///
/// Every rule of ``BaseIteratableContext`` holds.
public final class OffsetPaginator<Element: Sendable>: BaseIteratableContext<Int, OffsetPage<Element>>,
    @unchecked Sendable  // safe: adds only a `let` to its Sendable base
{
    /// How many items each page asks for.
    public let pageSize: Int

    /// Creates a paginator for an offset/limit API.
    ///
    /// - Parameters:
    ///   - pageSize: below 1, every page fails with ``BaseServerError`` coded `invalidRequest`.
    ///   - startOffset: the offset of the first page, and where ``BaseIteratableContext/reset()`` goes back to.
    ///   - snapshot: a snapshot taken earlier; when given, paging continues there and `startOffset` is ignored.
    ///   - queue: the queue handlers run on; the default configuration's callback queue when `nil`.
    ///   - load: returns the context of the request for `limit` items from `offset`; called once per page request,
    ///     on the thread that calls ``BaseIteratableContext/moveNext()``.
    public init<Response: OffsetPageResponse>(
        pageSize: Int, startOffset: Int = 0, restoring snapshot: PaginationSnapshot<Int>? = nil,
        queue: DispatchQueue? = nil,
        load: @escaping @Sendable (_ offset: Int, _ limit: Int) -> RequestContext<Response>
    ) where Response.Element == Element {
        self.pageSize = pageSize
        let callbackQueue = queue ?? NetworkConfiguration.default.callbackQueue
        super.init(start: startOffset, restoring: snapshot, queue: callbackQueue) { offset in
            guard pageSize > 0, offset >= 0 else {
                return ActiveRequestContext.failed(
                    BaseServerError.invalidRequest(
                        "offset paging needs pageSize > 0 and offset >= 0, got \(pageSize) and \(offset)"),
                    requestId: "paging.invalid", queue: callbackQueue)
            }
            return load(offset, pageSize).map { response in
                OffsetPaginator.loaded(response, offset: offset, limit: pageSize)
            }
        }
    }

    static func loaded<Response: OffsetPageResponse>(
        _ response: Response, offset: Int, limit: Int
    ) -> LoadedPage<OffsetPage<Element>, Int> where Response.Element == Element {
        let items = response.items
        let next = offset + items.count
        // An empty page ends it, whatever the total says.
        let hasMore = !items.isEmpty && (response.total.map { next < $0 } ?? (items.count >= limit))
        let page = OffsetPage(items: items, offset: offset, total: response.total, isLast: !hasMore)
        return LoadedPage(page, next: next, hasMore: hasMore)
    }
}

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
