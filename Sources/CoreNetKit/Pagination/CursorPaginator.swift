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
/// Unlike offsets, a cursor stays right when the server adds or removes items above it, so no
/// item is skipped or repeated. The first page is requested with a `nil` cursor; a `nil` or empty
/// next cursor ends the paging. Positions are cursors: `reset(to: nil)` starts over from the top.
///
/// A server that names a cursor it already gave in this run (A, B, A, B, …, or the cursor of
/// the page just loaded) would be paged forever: instead, the page that repeats it ends in
/// ``BaseServerError/Code-swift.struct/repeatedCursor`` through ``BaseIteratableContext/onError(_:)``
/// (its items are not delivered: they may be a repeat too), ``BaseIteratableContext/canMoveNext``
/// turns `false` and ``BaseIteratableContext/pages`` throws it. A run starts when the paginator
/// is created (with its start cursor, or a snapshot's position) and again at every reset; it
/// remembers at most 10,000 cursors (the oldest are forgotten), so memory stays bounded.
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
/// Every rule of ``BaseIteratableContext`` holds: one page at a time, a failed page is retried by
/// the next ``BaseIteratableContext/moveNext()``, a reset page is never delivered.
public final class CursorPaginator<Element: Sendable>: BaseIteratableContext<String?, CursorPage<Element>>,
    @unchecked Sendable  // safe: its only state, `history`, is a Locked
{
    /// The cursors given in this run.
    private let history: Locked<CursorHistory>

    /// Creates a paginator for a cursor API.
    ///
    /// - Parameters:
    ///   - startCursor: the cursor of the first page (`nil`: the top), and the one
    ///     ``BaseIteratableContext/reset()`` goes back to.
    ///   - snapshot: a ``BaseIteratableContext/snapshot`` taken earlier; paging continues where it
    ///     stood.
    ///   - queue: the queue handlers run on; the default configuration's callback queue when `nil`.
    ///   - load: returns the context of the request for the page at `cursor`. Called on the
    ///     thread that calls ``BaseIteratableContext/moveNext()``, once per page request.
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

    /// Continues from `position` with the next ``BaseIteratableContext/moveNext()`` and starts a
    /// new run: cursors given before are forgotten. See ``BaseIteratableContext/reset(to:)``.
    public override func reset(to position: String?) {
        history.withLock { $0.restart(at: position) }
        super.reset(to: position)
    }

    /// Continues from the start cursor and starts a new run; see ``reset(to:)``.
    public override func reset() {
        let start = state.withLock { $0.start }
        history.withLock { $0.restart(at: start) }
        super.reset()
    }

    /// The page `response` makes at `cursor`, and where the next one starts.
    static func loaded<Response: CursorPageResponse>(
        _ response: Response, cursor: String?
    ) -> LoadedPage<CursorPage<Element>, String?> where Response.Element == Element {
        var next = response.nextCursor
        if next?.isEmpty == true { next = nil }
        let page = CursorPage(items: response.items, cursor: cursor, nextCursor: next)
        return LoadedPage(page, next: next, hasMore: next != nil)
    }
}
