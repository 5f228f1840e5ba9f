//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// Pages through a cursor API (`?cursor=…`): each page names where the next one starts.
///
/// Unlike offsets, a cursor stays right when the server adds or removes items above it. The first page is requested
/// with a `nil` cursor; a `nil` or empty next cursor ends the paging; `reset(to: nil)` starts over from the top.
///
/// A server that names a cursor it already gave in this run (A, B, A, B, …) would be paged forever: instead that
/// page ends in ``BaseServerError/Code-swift.struct/repeatedCursor`` through ``BaseIteratableContext/onError(_:)``
/// (its items are not delivered), ``BaseIteratableContext/canMoveNext`` turns `false` and
/// ``BaseIteratableContext/pages`` throws it. A run starts at creation (at the start cursor or the snapshot's
/// position) and at every reset; it remembers at most 10,000 cursors, the oldest forgotten first.
///
/// ```swift
/// let paginator = CursorPaginator { cursor in
///     feedService.posts(after: cursor)                      // ActiveRequestContext<FeedPage>
/// }
/// for try await page in paginator.pages {
///     append(page.items)
/// }
/// ```
///
/// Every rule of ``BaseIteratableContext`` holds.
public final class CursorPaginator<Element: Sendable>: BaseIteratableContext<String?, CursorPage<Element>>,
    @unchecked Sendable  // safe: its only state, `history`, is a Locked
{
    private let history: Locked<CursorHistory>

    /// Creates a paginator for a cursor API.
    ///
    /// - Parameters:
    ///   - startCursor: the cursor of the first page (`nil`: the top), and where
    ///     ``BaseIteratableContext/reset()`` goes back to.
    ///   - snapshot: a snapshot taken earlier; when given, paging continues there and `startCursor` is ignored.
    ///   - queue: the queue handlers run on; the default configuration's callback queue when `nil`.
    ///   - load: returns the context of the request for the page at `cursor`; called once per page request, on the
    ///     thread that calls ``BaseIteratableContext/moveNext()``.
    public init<Response: CursorPageResponse>(
        startCursor: String? = nil, restoring snapshot: PaginationSnapshot<String?>? = nil,
        queue: DispatchQueue? = nil,
        load: @escaping @Sendable (_ cursor: String?) -> RequestContext<Response>
    ) where Response.Element == Element {
        let history = Locked(CursorHistory())
        history.withLock { $0.restart(at: snapshot?.next ?? startCursor) }
        self.history = history
        super.init(start: startCursor, restoring: snapshot, queue: queue) { cursor in
            let run = history.withLock { $0.run }
            return load(cursor).map { response in
                let loaded = CursorPaginator.loaded(response, cursor: cursor)
                if let next = loaded.next, !history.withLock({ $0.accept(next, at: cursor, inRun: run) }) {
                    throw BaseServerError(
                        code: .repeatedCursor,
                        message: "the next cursor after the page at \(cursor.map { "\"\($0)\"" } ?? "the start") "
                            + "was already given in this run")
                }
                return loaded
            }
        }
    }

    /// Like ``BaseIteratableContext/reset(to:)``, and starts a new run: cursors given before are forgotten.
    public override func reset(to position: String?) {
        history.withLock { $0.restart(at: position) }
        super.reset(to: position)
    }

    static func loaded<Response: CursorPageResponse>(
        _ response: Response, cursor: String?
    ) -> LoadedPage<CursorPage<Element>, String?> where Response.Element == Element {
        let next = response.nextCursor.flatMap { $0.isEmpty ? nil : $0 }
        let page = CursorPage(items: response.items, cursor: cursor, nextCursor: next)
        return LoadedPage(page, next: next, hasMore: next != nil)
    }
}

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

/// The cursors a ``CursorPaginator`` was given in its current run (from creation or a reset), so that a server
/// that repeats one (A, B, A, B, …) stops the paging instead of looping. Past ``limit`` the oldest are forgotten:
/// a longer loop goes unnoticed, but memory stays bounded.
struct CursorHistory {
    static let limit = 10_000

    private(set) var run = 0
    /// The last page accepted: reading it again (cached answer, then the server's) names the same cursor legally.
    private var last: (position: String?, next: String)?
    private var seen: Set<String> = []
    private var order: [String] = []
    private var oldest = 0

    /// Starts a new run at `start`: only the start cursor is remembered.
    mutating func restart(at start: String?) {
        run += 1
        last = nil
        seen = []
        order = []
        oldest = 0
        if let start { remember(start) }
    }

    /// Records `next`, named by the page at `position`; `false` when another page gave it in this run. A result of
    /// an earlier run is ignored (`true`).
    mutating func accept(_ next: String, at position: String?, inRun run: Int) -> Bool {
        guard run == self.run else { return true }
        if let last, last.position == position, last.next == next { return true }
        guard !seen.contains(next) else { return false }
        last = (position, next)
        remember(next)
        return true
    }

    private mutating func remember(_ cursor: String) {
        seen.insert(cursor)
        order.append(cursor)
        if order.count - oldest > Self.limit {
            seen.remove(order[oldest])
            oldest += 1
            if oldest > Self.limit {
                order.removeFirst(oldest)
                oldest = 0
            }
        }
    }
}
