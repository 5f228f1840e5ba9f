//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// A paginator: a context that loads a list page by page and delivers every page through
/// ``onSuccess(_:)`` or ``onError(_:)`` — one event per page, not one per context.
///
/// Each ``moveNext()`` asks its page loader for the page at the current position; the loader
/// returns the context of one request (``BaseServerRequest/perform()`` style) that ends in a
/// ``LoadedPage``: the page, where the next one starts, and whether there is one. The rules:
///
/// - At most one page loads at a time. ``moveNext()`` while a page loads, or after the last
///   page, requests nothing and returns `false`.
/// - A page that fails is reported through ``onError(_:)`` and leaves the position where it
///   was: the next ``moveNext()`` asks for the same page again — except a failure with
///   ``BaseServerError/Code-swift.struct/repeatedCursor`` (a server that loops, see
///   ``CursorPaginator``), which ends the paging: ``canMoveNext`` turns `false`.
/// - ``reset(to:)`` and ``cancel()`` cancel the page in flight; its result is never delivered.
///   After ``reset(to:)`` no event decided before it is delivered either.
/// - Releasing the paginator cancels the page in flight.
/// - Only a page context's terminal result counts: a cached result it delivers first through
///   `onCacheSuccess` is not a page.
///
/// ``OffsetPaginator`` and ``CursorPaginator`` are the two kinds most APIs need. For async/await
/// code, iterate ``pages``. Take a ``snapshot`` to come back to the same position later.
///
/// ```swift
/// paginator
///     .onSuccess { page in append(page.items) }      // once per page, on the callback queue
///     .onError { error in present(error) }           // once per failed page
/// paginator.moveNext()
/// ```
public class BaseIteratableContext<Position: Sendable, Page: Sendable>: PagingRequestContext, ServiceAsyncIterator,
    @unchecked Sendable  // safe: all mutable state is in `state`, a Locked; the rest is `let`
{
    /// The type of one page.
    public typealias Model = Page
    /// Loads the page at a position.
    public typealias PageLoader = @Sendable (Position) -> RequestContext<LoadedPage<Page, Position>>

    /// The queue every handler runs on; fixed at `init`.
    public let queue: DispatchQueue
    private let delivery: SerialDelivery
    private let load: PageLoader
    let state: Locked<IteratorState<Position, Page>>

    /// Creates a paginator that starts at `start`, or where `snapshot` stood.
    ///
    /// - Parameters:
    ///   - start: the position of the first page, and the one ``reset()`` goes back to.
    ///   - snapshot: a ``snapshot`` taken earlier; when given, paging continues where it stood
    ///     and `start` is ignored.
    ///   - queue: the queue handlers run on; ``NetworkConfiguration/callbackQueue`` of
    ///     ``NetworkConfiguration/default`` when `nil`.
    ///   - load: returns the context of the request for the page at a position. It is called on
    ///     the thread that called ``moveNext()`` (or iterates ``pages``), never under a lock.
    public init(
        start: Position, restoring snapshot: PaginationSnapshot<Position>? = nil,
        queue: DispatchQueue? = nil, load: @escaping PageLoader
    ) {
        let queue = queue ?? NetworkConfiguration.default.callbackQueue
        self.queue = queue
        // Keeps pages in order also on a concurrent queue.
        self.delivery = SerialDelivery(queue: queue)
        self.load = load
        self.state = Locked(IteratorState(snapshot ?? PaginationSnapshot(start: start, next: start, hasMore: true)))
    }

    deinit {
        state.withLock { $0.abandon() }.cancel?()
    }

    // MARK: State

    /// Whether a next page remains: `false` once the last page was delivered, `true` again after
    /// a reset. It stays `true` while a page loads and after a page failed.
    public var canMoveNext: Bool { state.withLock { $0.hasMore } }

    /// Whether a page is loading: `true` from a ``moveNext()`` that requests a page until that
    /// page's event is decided (or it is cancelled by ``reset(to:)`` or ``cancel()``).
    public var isLoading: Bool { state.withLock { $0.inFlight != nil } }

    /// Where the paginator stands: where the next page starts and whether there is one. A page
    /// that is loading is not counted as loaded.
    public var snapshot: PaginationSnapshot<Position> { state.withLock { $0.snapshot } }

    // MARK: Handlers

    /// Adds a handler for pages.
    ///
    /// It runs on ``queue``, once for every page delivered after it was added, in page order.
    /// It is never called for a page whose request was cancelled or reset. The paginator keeps it
    /// until the paginator is released, so capture the paginator weakly inside it.
    @discardableResult
    public func onSuccess(_ handler: @escaping @Sendable (Page) -> Void) -> Self {
        state.withLock { $0.success.append(handler) }
        return self
    }

    /// Adds a handler for pages that failed.
    ///
    /// It runs on ``queue``, once for every failed page delivered after it was added. The error is
    /// the one the page's context ended with (a ``BaseServerError`` or the error an
    /// ``ErrorMapperAdapter`` produced); ``BaseServerError/cancelled`` when someone else than the
    /// paginator cancelled the page's context. The position is unchanged, so the next
    /// ``moveNext()`` retries the page. The paginator keeps the handler until it is released.
    @discardableResult
    public func onError(_ handler: @escaping @Sendable (any Error) -> Void) -> Self {
        state.withLock { $0.failure.append(handler) }
        return self
    }

    // MARK: Paging

    /// Starts loading the next page.
    ///
    /// - Returns: `true` when the request for the next page started; `false` when a page is
    ///   already loading or the last page was delivered, and nothing was requested.
    @discardableResult
    public func moveNext() -> Bool {
        guard let begun = state.withLock({ $0.begin() }) else { return false }
        launch(begun.token, at: begun.position)
        return true
    }

    /// Continues from `position` with the next ``moveNext()``.
    ///
    /// Cancels the page in flight; neither its result nor any event not yet handed to a handler
    /// is delivered. ``canMoveNext`` becomes `true`. Safe to call from any thread; called on
    /// ``queue`` when it is serial (as `.main` is), no handler runs for an earlier page after it.
    public func reset(to position: Position) {
        stop(state.withLock { $0.reset(to: position) })
    }

    /// Continues from the start position with the next ``moveNext()``; see ``reset(to:)``.
    public func reset() {
        stop(state.withLock { $0.reset(to: $0.start) })
    }

    /// Cancels the page in flight, if any: no event is delivered for it and the position stays,
    /// so the next ``moveNext()`` requests the same page.
    public func cancel() {
        stop(state.withLock { $0.abandon() })
    }

    // MARK: Internal

    /// Requests the page `token` at `position` and routes its result back.
    func launch(_ token: Int, at position: Position) {
        let context = load(position)
        let attached = state.withLock { $0.attach({ context.cancel() }, to: token) }
        guard attached else {
            context.cancel()
            return
        }
        context.observe { [weak self] outcome in self?.finish(token, outcome) }
    }

    /// Cancels an abandoned page and tells the iterators waiting for it.
    func stop(_ abandoned: IteratorState<Position, Page>.Abandoned) {
        abandoned.cancel?()
        for waiter in abandoned.waiters { waiter.resume(.failure(BaseServerError.cancelled)) }
    }

    private func finish(_ token: Int, _ outcome: ContextOutcome) {
        guard let delivered = state.withLock({ $0.finish(token, outcome) }) else { return }
        delivery.async { self.drain() }
        for waiter in delivered.waiters { waiter.resume(delivered.result) }
    }

    /// Hands every event in the outbox to the handlers; runs on `delivery`.
    private func drain() {
        let taken = state.withLock { $0.takeOutbox() }
        for event in taken.events {
            switch event {
            case .page(let page): for handler in taken.success { handler(page) }
            case .failure(let error): for handler in taken.failure { handler(error) }
            }
        }
    }
}
