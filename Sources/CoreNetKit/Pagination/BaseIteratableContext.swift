//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// A paginator: a context that loads a list page by page and delivers every page through ``onSuccess(_:)`` or
/// ``onError(_:)`` — one event per page, not one per context.
///
/// Each ``moveNext()`` asks the page loader for the context of one request (``BaseServerRequest/perform()`` style)
/// that ends in a ``LoadedPage``: the page, where the next one starts, and whether there is one. The rules:
///
/// - At most one page loads at a time; ``moveNext()`` while one loads, or after the last page, returns `false`.
/// - A failed page goes to ``onError(_:)`` and keeps the position, so the next ``moveNext()`` retries it — except
///   ``BaseServerError/Code-swift.struct/repeatedCursor`` (see ``CursorPaginator``), which ends the paging.
/// - ``reset(to:)``, ``cancel()`` and releasing the paginator cancel the page in flight; its result is never
///   delivered, and after ``reset(to:)`` no event decided before it is either.
/// - Only a page context's terminal result counts, not a cached one it delivers first via `onCacheSuccess`.
///
/// ``OffsetPaginator`` and ``CursorPaginator`` fit most APIs. For async/await, iterate ``pages``; take a
/// ``snapshot`` to come back to the same position later.
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
    /// One page.
    public typealias Model = Page
    /// Loads the page at a position.
    public typealias PageLoader = @Sendable (Position) -> RequestContext<LoadedPage<Page, Position>>

    /// The queue every handler runs on; fixed at `init`.
    public var queue: DispatchQueue { delivery.queue }
    /// Runs `drain` in order, also on a concurrent queue.
    private let delivery: ContextCore
    private let load: PageLoader
    let state: Locked<IteratorState<Position, Page>>

    /// Creates a paginator that starts at `start`, or where `snapshot` stood.
    ///
    /// - Parameters:
    ///   - start: the position of the first page, and where ``reset()`` goes back to.
    ///   - snapshot: a ``snapshot`` taken earlier; when given, paging continues there and `start` is ignored.
    ///   - queue: the queue handlers run on; ``NetworkConfiguration/callbackQueue`` of
    ///     ``NetworkConfiguration/default`` when `nil`.
    ///   - load: returns the context of the request for the page at a position. Called on the thread that called
    ///     ``moveNext()`` (or iterates ``pages``), never under a lock.
    public init(
        start: Position, restoring snapshot: PaginationSnapshot<Position>? = nil,
        queue: DispatchQueue? = nil, load: @escaping PageLoader
    ) {
        self.delivery = ContextCore(queue: queue ?? NetworkConfiguration.default.callbackQueue)
        self.load = load
        self.state = Locked(IteratorState(snapshot ?? PaginationSnapshot(start: start, next: start, hasMore: true)))
    }

    deinit {
        state.withLock { $0.abandon() }.cancel?()
    }

    // MARK: State

    /// Whether a next page remains: `false` once the last page was delivered, `true` again after a reset. It stays
    /// `true` while a page loads and after a page failed.
    public var canMoveNext: Bool { state.withLock { $0.hasMore } }

    /// Whether a page is loading: from the ``moveNext()`` asking for it until its event is decided or it's cancelled.
    public var isLoading: Bool { state.withLock { $0.inFlight != nil } }

    /// Where the next page starts and whether there is one; a page still loading does not count as loaded.
    public var snapshot: PaginationSnapshot<Position> { state.withLock { $0.snapshot } }

    // MARK: Handlers

    /// Adds a handler for pages: it runs on ``queue``, once per page delivered after it was added, in page order, never
    /// for a cancelled or reset page.
    ///
    /// It is kept until the paginator is released: capture the paginator weakly.
    @discardableResult
    public func onSuccess(_ handler: @escaping @Sendable (Page) -> Void) -> Self {
        state.withLock { $0.success.append(handler) }
        return self
    }

    /// Adds a handler for failed pages: it runs on ``queue``, once per failed page delivered after it was added, and is
    /// kept until the paginator is released.
    ///
    /// The error is the page context's (a ``BaseServerError`` or what an ``ErrorMapperAdapter`` produced);
    /// ``BaseServerError/cancelled`` when someone else than the paginator cancelled that context. The position is
    /// unchanged, so the next ``moveNext()`` retries the page.
    @discardableResult
    public func onError(_ handler: @escaping @Sendable (any Error) -> Void) -> Self {
        state.withLock { $0.failure.append(handler) }
        return self
    }

    // MARK: Paging

    /// Starts loading the next page; `false` (nothing requested) when a page is loading or the last was delivered.
    @discardableResult
    public func moveNext() -> Bool {
        guard let begun = state.withLock({ $0.begin() }) else { return false }
        launch(begun.token, at: begun.position)
        return true
    }

    /// Continues from `position` with the next ``moveNext()``; ``canMoveNext`` becomes `true`.
    ///
    /// Cancels the page in flight; neither its result nor any event not yet handed to a handler is delivered. Safe from
    /// any thread; called on a serial ``queue`` (as `.main` is), no handler for an earlier page runs after it.
    public func reset(to position: Position) {
        stop(state.withLock { $0.reset(to: position) })
    }

    /// Continues from the start position with the next ``moveNext()``; see ``reset(to:)``.
    public func reset() {
        reset(to: state.withLock { $0.start })
    }

    /// Cancels the page in flight, if any: no event is delivered for it and the next ``moveNext()`` requests it again.
    public func cancel() {
        stop(state.withLock { $0.abandon() })
    }

    // MARK: Internal

    func launch(_ token: Int, at position: Position) {
        let context = load(position)
        guard state.withLock({ $0.attach({ context.cancel() }, to: token) }) else {
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

    /// Runs on `delivery`.
    private func drain() {
        let taken = state.withLock { $0.takeOutbox() }
        for event in taken.events {
            switch event {
            case .success(let page): for handler in taken.success { handler(page) }
            case .failure(let error): for handler in taken.failure { handler(error) }
            }
        }
    }
}

/// Loads a list page by page: ``moveNext()`` asks for the next page, ``reset(to:)`` starts again from a position.
///
/// Pages arrive through the paginator's own events (``BaseIteratableContext/onSuccess(_:)``,
/// ``BaseIteratableContext/onError(_:)``), not as return values. At most one page loads at a time.
public protocol ServicePaginator<Model>: AnyObject, Sendable {
    /// One page, as the paginator delivers it.
    associatedtype Model: Sendable
    /// Where a page starts: an offset, a cursor, a page number.
    associatedtype Position: Sendable

    /// Starts loading the next page; `false` (nothing requested) when a page is loading or the end was reached.
    @discardableResult func moveNext() -> Bool

    /// Continues from `position` with the next ``moveNext()``; a page loading is cancelled and never delivered.
    func reset(to position: Position)
}

/// A ``ServicePaginator`` that knows whether more pages remain.
public protocol ServiceAsyncIterator<Model>: ServicePaginator {
    /// Whether a next page remains: `false` once the last page was delivered, `true` again after a reset.
    var canMoveNext: Bool { get }
}
