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
/// next cursor ends the paging, and so does a next cursor equal to the one just used (an API that
/// would otherwise loop). Positions are cursors: `reset(to: nil)` starts over from the top.
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
    @unchecked Sendable  // safe: adds no state to its Sendable base
{
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
        super.init(start: startCursor, restoring: snapshot, queue: queue) { cursor in
            load(cursor).map { response in CursorPaginator.loaded(response, cursor: cursor) }
        }
    }

    /// The page `response` makes at `cursor`, and where the next one starts.
    static func loaded<Response: CursorPageResponse>(
        _ response: Response, cursor: String?
    ) -> LoadedPage<CursorPage<Element>, String?> where Response.Element == Element {
        var next = response.nextCursor
        if next?.isEmpty == true || next == cursor { next = nil }
        let page = CursorPage(items: response.items, cursor: cursor, nextCursor: next)
        return LoadedPage(page, next: next, hasMore: next != nil)
    }
}
