//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// The consumer side of one result: handlers, cancellation and the async/await bridge.
///
/// It delivers exactly one terminal event — a success, an error, or nothing after ``cancel()``
/// — and may deliver one cached result before it. Handlers run on ``queue`` (set at `init`,
/// never changed), each at most once, in the order they were attached; a cached result is
/// always delivered before the terminal event. A handler attached after its event fires at once
/// (asynchronously, on ``queue``). After the terminal event the context drops every handler, so
/// nothing it captured is retained.
///
/// Only its producer can finish it: the request pipeline for an ``ActiveRequestContext``, the
/// owner for a ``HandleRequestContext``.
///
/// ```swift
/// let context: RequestContext<User> = GetUserRequest(id: 1).perform()
/// context.onSuccess { user in show(user) }.onError { error in present(error) }
/// ```
public class RequestContext<Model: Sendable>: CacheableContext, CancellableContext,
    @unchecked Sendable  // safe: all mutable state is in `state`, a Locked
{
    /// The queue every handler runs on.
    public let queue: DispatchQueue
    /// Serial: every handler runs through it, in the order it was enqueued.
    let delivery: SerialDelivery
    let state = Locked(ContextState<Model>())

    /// Creates a context whose handlers run on `queue`.
    init(queue: DispatchQueue) {
        self.queue = queue
        // Keeps the cache-then-terminal order also on a concurrent queue.
        self.delivery = SerialDelivery(queue: queue)
    }

    /// Whether the terminal event (or cancellation) has happened.
    ///
    /// It turns `true` when the outcome is decided, which is when ``value`` returns; the
    /// handlers for it are queued on ``queue`` at that moment and may not have run yet.
    public var isFinished: Bool { state.withLock { $0.outcome != nil } }

    /// Whether the success was read from the cache instead of the server: `true` after a
    /// ``CachePolicy/cacheOnly`` hit, after the fallback of
    /// ``CachePolicy/serverIfFailReadFromCache`` (show an "offline" banner) and after an answer
    /// from the entry under ``CachePolicy/cacheIfFreshElseServer``, `false` for a server
    /// answer (also one confirmed by `304 Not Modified`) and before the terminal event.
    ///
    /// It is set before any handler runs, so `onSuccess` handlers and code after
    /// `try await context.value` can read it:
    ///
    /// ```swift
    /// let context = ordersService.orders()
    /// context.onSuccess { orders in show(orders, offline: context.isFromCache) }
    /// ```
    public var isFromCache: Bool {
        state.withLock {
            if case .success(_, let fromCache) = $0.outcome { return fromCache }
            return false
        }
    }

    /// Whether ``cancel()`` ended the context.
    public var isCancelled: Bool {
        state.withLock {
            if case .cancelled = $0.outcome { return true }
            return false
        }
    }

    // MARK: Handlers

    @discardableResult
    public func onSuccess(_ handler: @escaping @Sendable (Model) -> Void) -> Self {
        let model: Model? = state.withLock { state in
            switch state.outcome {
            case nil:
                state.success.append(handler)
                return nil
            case .success(let model, _): return model
            default: return nil
            }
        }
        if let model { delivery.async { handler(model) } }
        return self
    }

    @discardableResult
    public func onError(_ handler: @escaping @Sendable (any Error) -> Void) -> Self {
        let error: (any Error)? = state.withLock { state in
            switch state.outcome {
            case nil:
                state.failure.append(handler)
                return nil
            case .failure(let error): return error
            default: return nil
            }
        }
        if let error { delivery.async { handler(error) } }
        return self
    }

    @discardableResult
    public func onCompleted(_ handler: @escaping @Sendable (Result<Model, any Error>) -> Void) -> Self {
        let result: Result<Model, any Error>? = state.withLock { state in
            switch state.outcome {
            case nil:
                state.completed.append(handler)
                return nil
            case .success(let model, _): return .success(model)
            case .failure(let error): return .failure(error)
            case .cancelled: return nil
            }
        }
        if let result { delivery.async { handler(result) } }
        return self
    }

    @discardableResult
    public func onCacheSuccess(_ handler: @escaping @Sendable (Model) -> Void) -> Self {
        let cached: Model? = state.withLock { state in
            if state.outcome == nil, state.cached == nil {
                state.cache.append(handler)
                return nil
            }
            return state.cached
        }
        if let cached { delivery.async { handler(cached) } }
        return self
    }

    /// Adds a handler for cancellation; fires once, on the callback queue, when ``cancel()``
    /// ends the context (also if it was already cancelled), never otherwise.
    @discardableResult
    public func onCancel(_ handler: @escaping @Sendable () -> Void) -> Self {
        let cancelled: Bool = state.withLock { state in
            switch state.outcome {
            case nil:
                state.cancel.append(handler)
                return false
            case .cancelled: return true
            default: return false
            }
        }
        if cancelled { delivery.async { handler() } }
        return self
    }

    // MARK: Producer (internal: only the pipeline or the owner finishes a context)

    /// Delivers the pipeline's outcome: the model (and whether it was read from the cache) or
    /// the error; ignored after the terminal event.
    func deliver(_ result: ResponseResult<Model>) {
        switch result {
        case .success(let model, let fromCache): finish(.success(model, fromCache: fromCache))
        case .failure(let error): finish(.failure(error))
        }
    }

    func emit(data: Model) {
        finish(.success(data, fromCache: false))
    }

    /// Delivers the successful result and records whether it was read from the cache (see
    /// ``isFromCache``); ignored after the terminal event.
    func emit(data: Model, fromCache: Bool) {
        finish(.success(data, fromCache: fromCache))
    }

    func emit(error: any Error) {
        finish(.failure(error))
    }

    /// Delivers a cached result to `onCacheSuccess` handlers; ignored after the terminal event
    /// or a first cached result.
    func emitCache(data: Model) {
        let taken: (handlers: [@Sendable (Model) -> Void], observers: [@Sendable (Model) -> Void])? = state.withLock {
            state in
            guard state.outcome == nil, state.cached == nil else { return nil }
            state.cached = data
            defer {
                state.cache = []
                state.cacheObservers = []
            }
            return (state.cache, state.cacheObservers)
        }
        guard let taken else { return }
        for observer in taken.observers { observer(data) }
        let handlers = taken.handlers
        guard !handlers.isEmpty else { return }
        delivery.async { for handler in handlers { handler(data) } }
    }

    /// Cancels the work behind the context: neither `onSuccess` nor `onError` fires afterwards,
    /// and `onCancel` handlers fire once, on ``queue``. Does nothing after the terminal event.
    public func cancel() {
        finish(.cancelled)
    }

    /// Records the terminal outcome once and delivers it: observers inline, handlers on the queue.
    func finish(_ outcome: ContextOutcome<Model>) {
        let taken: ContextState<Model>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            let taken = state
            state.clearHandlers()
            return taken
        }
        guard let taken else { return }
        if case .cancelled = outcome { taken.cancelAction?() }
        for observer in taken.observers { observer(outcome) }
        switch outcome {
        case .success(let model, _):
            guard !taken.success.isEmpty || !taken.completed.isEmpty else { return }
            delivery.async {
                for handler in taken.success { handler(model) }
                for handler in taken.completed { handler(.success(model)) }
            }
        case .failure(let error):
            guard !taken.failure.isEmpty || !taken.completed.isEmpty else { return }
            delivery.async {
                for handler in taken.failure { handler(error) }
                for handler in taken.completed { handler(.failure(error)) }
            }
        case .cancelled:
            guard !taken.cancel.isEmpty else { return }
            delivery.async { for handler in taken.cancel { handler() } }
        }
    }

    // MARK: Internal wiring

    /// Sets what ``cancel()`` stops; if the context is already cancelled, runs it at once.
    func setCancelAction(_ action: @escaping @Sendable () -> Void) {
        let runNow: Bool = state.withLock { state in
            switch state.outcome {
            case nil:
                state.cancelAction = action
                return false
            case .cancelled: return true
            default: return false
            }
        }
        if runNow { action() }
    }

    /// Calls `observer` inline with the terminal outcome, at once if it already happened.
    func observe(_ observer: @escaping @Sendable (ContextOutcome<Model>) -> Void) {
        let outcome: ContextOutcome<Model>? = state.withLock { state in
            if state.outcome == nil { state.observers.append(observer) }
            return state.outcome
        }
        if let outcome { observer(outcome) }
    }

    /// Calls `observer` inline with the cached result when it is emitted (or at once).
    func observeCache(_ observer: @escaping @Sendable (Model) -> Void) {
        let cached: Model? = state.withLock { state in
            if state.cached == nil, state.outcome == nil { state.cacheObservers.append(observer) }
            return state.cached
        }
        if let cached { observer(cached) }
    }
}
