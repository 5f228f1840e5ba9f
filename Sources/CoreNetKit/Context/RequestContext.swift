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
/// It delivers exactly one terminal event (a success, an error, or nothing after ``cancel()``), and at most one
/// cached result before it. Handlers run on ``queue`` (fixed at `init`), each at most once, in the order attached; a
/// handler attached after its event fires at once (asynchronously, on ``queue``). After the terminal event every
/// handler is dropped, so nothing it captured is retained. Only its producer can finish it: the request pipeline for
/// an ``ActiveRequestContext``, the owner for a ``HandleRequestContext``.
///
/// ```swift
/// let context: RequestContext<User> = GetUserRequest(id: 1).perform()
/// context.onSuccess { user in show(user) }.onError { error in present(error) }
/// ```
public class RequestContext<Model: Sendable>: CacheableContext, CancellableContext,
    @unchecked Sendable  // safe: its only state is `core`, whose mutable state is behind a lock
{
    /// Outcome, handlers and ordered delivery, model type erased; this class casts the model back for handlers.
    let core: ContextCore

    /// The queue every handler runs on.
    public var queue: DispatchQueue { core.queue }

    init(queue: DispatchQueue) { core = ContextCore(queue: queue) }

    /// Whether the terminal event (or cancellation) has happened: `true` once the outcome is decided, which is when
    /// ``value`` returns; its handlers are queued on ``queue`` then and may not have run yet.
    public var isFinished: Bool { core.isFinished }

    /// Whether the success was read from the cache instead of the server.
    ///
    /// `true` after a ``CachePolicy/cacheOnly`` hit, the fallback of ``CachePolicy/serverIfFailReadFromCache`` (show
    /// an "offline" banner) and an answer from the entry under ``CachePolicy/cacheIfFreshElseServer``; `false` for a
    /// server answer (also one confirmed by `304 Not Modified`) and before the terminal event. Set before any handler
    /// runs, so `onSuccess` handlers and code after `try await context.value` can read it:
    ///
    /// ```swift
    /// context.onSuccess { orders in show(orders, offline: context.isFromCache) }
    /// ```
    public var isFromCache: Bool { core.isFromCache }

    /// Whether ``cancel()`` ended the context.
    public var isCancelled: Bool { core.isCancelled }

    // MARK: Handlers

    @discardableResult
    public func onSuccess(_ handler: @escaping @Sendable (Model) -> Void) -> Self {
        core.onSuccess { model in handler(Self.typed(model)) }
        return self
    }

    @discardableResult
    public func onError(_ handler: @escaping @Sendable (any Error) -> Void) -> Self {
        core.onError(handler)
        return self
    }

    @discardableResult
    public func onCompleted(_ handler: @escaping @Sendable (Result<Model, any Error>) -> Void) -> Self {
        core.onCompleted { outcome in
            switch outcome {
            case .success(let model, _): handler(.success(Self.typed(model)))
            case .failure(let error): handler(.failure(error))
            case .cancelled: break
            }
        }
        return self
    }

    @discardableResult
    public func onCacheSuccess(_ handler: @escaping @Sendable (Model) -> Void) -> Self {
        core.onCacheSuccess { model in handler(Self.typed(model)) }
        return self
    }

    /// Adds a handler for cancellation; fires once, on the callback queue, when ``cancel()``
    /// ends the context (also if it was already cancelled), never otherwise.
    @discardableResult
    public func onCancel(_ handler: @escaping @Sendable () -> Void) -> Self {
        core.onCancel(handler)
        return self
    }

    // MARK: Producer (internal: only the pipeline or the owner finishes a context)

    func emit(data: Model) {
        core.finish(.success(data, fromCache: false))
    }

    /// Delivers the success, recording whether it came from the cache (``isFromCache``); ignored once finished.
    func emit(data: Model, fromCache: Bool) {
        core.finish(.success(data, fromCache: fromCache))
    }

    func emit(error: any Error) {
        core.finish(.failure(error))
    }

    func emitCache(data: Model) {
        core.emitCache(data)
    }

    /// Cancels the work behind the context: neither `onSuccess` nor `onError` fires afterwards,
    /// and `onCancel` handlers fire once, on ``queue``. Does nothing after the terminal event.
    public func cancel() {
        core.finish(.cancelled)
    }

    // MARK: Internal wiring

    /// Casts a core's model back: every value a `RequestContext<Model>`'s core receives is a `Model`, so it can't fail.
    static func typed(_ model: any Sendable) -> Model {
        model as! Model  // safe: see above
    }

    func setCancelAction(_ action: @escaping @Sendable () -> Void) {
        core.setCancelAction(.run(action))
    }

    func observe(_ observer: @escaping @Sendable (ContextOutcome) -> Void) {
        core.observe(observer)
    }

    func observeCache(_ observer: @escaping @Sendable (Model) -> Void) {
        core.observeCache { model in observer(Self.typed(model)) }
    }
}

/// Bridges contexts to async/await.
extension RequestContext {
    /// The terminal result, awaited; cancelling the awaiting Task cancels the context (and so the request).
    ///
    /// Returns as soon as the outcome is decided: `onSuccess`/`onError` handlers are queued on
    /// ``RequestContext/queue`` then and may not have run yet, so use the returned model, not state a handler sets.
    ///
    /// - Throws: The context's error, or ``BaseServerError`` with code
    ///   ``BaseServerError/Code-swift.struct/cancelled`` when it is cancelled.
    public var value: Model {
        get async throws { try await awaitOutcome() }
    }

    /// The terminal result as a `Result`, awaited; never throws (cancellation gives `.failure` with a
    /// ``BaseServerError`` coded `cancelled`). Like ``value``, it may return before the queued handlers have run.
    public var result: Result<Model, any Error> {
        get async {
            do { return .success(try await value) } catch { return .failure(error) }
        }
    }

    private func awaitOutcome() async throws -> Model {
        let core = core
        // The core resumes the continuation itself at the terminal event, which cancelling this Task brings about.
        let model = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
                core.await(continuation)
            }
        } onCancel: {
            core.finish(.cancelled)
        }
        return Self.typed(model)
    }

    /// Awaits the outcome; cancelling this Task ends the wait with `cancelled` but leaves the context running.
    func awaitOutcomeLeavingContextOnCancel() async throws -> Model {
        // Held erased, as in the core: a `Model` waiter would look up model-generic metadata on every await.
        let waiter = OneShot<any Sendable>()
        let core = core
        let model = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
                waiter.set(continuation)
                core.observe { waiter.resume($0.result) }
            }
        } onCancel: {
            waiter.resume(.failure(BaseServerError.cancelled))
        }
        return Self.typed(model)
    }
}

/// Upload and download progress.
extension RequestContext {
    /// Adds a handler for the progress of the request body going out.
    ///
    /// Runs on the callback queue, any number of times until the terminal event, never after it (nor after
    /// ``cancel()``). Values never go down, come at most about 30 times a second, and a successful request delivers a
    /// last one with ``TransferProgress/fraction`` `1.0` before `onSuccess`, also with no body. A handler attached late
    /// first gets the latest value at once. A ``map(_:)`` context delivers its source's progress; a ``flatMap(_:)``
    /// one the running request's: the first's, then the second's, starting again from its first value.
    ///
    /// ```swift
    /// UploadPhotoRequest(file: url).perform()
    ///     .onUploadProgress { progress in bar.value = progress.fraction }
    ///     .onSuccess { photo in show(photo) }
    /// ```
    @discardableResult
    public func onUploadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        core.addProgressHandler(handler, for: .upload)
        return self
    }

    /// Adds a handler for the progress of the response body coming in.
    ///
    /// Runs on the callback queue until the terminal event or ``cancel()``, by the rules of ``onUploadProgress(_:)``
    /// (rate, never down, a last `1.0` before `onSuccess`, chaining). Without a `Content-Length`,
    /// ``TransferProgress/totalBytes`` is `nil` and the fraction stays `0.0` until the end.
    @discardableResult
    public func onDownloadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        core.addProgressHandler(handler, for: .download)
        return self
    }

    func emitProgress(_ progress: TransferProgress, for direction: TransferDirection) {
        core.emitProgress(progress, for: direction)
    }
}

/// Upload and download progress of the source context.
extension PassiveRequestContext {
    /// Adds a handler for the source's upload progress, run on its callback queue until its terminal event; see
    /// ``RequestContext/onUploadProgress(_:)``.
    @discardableResult
    public func onUploadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        source.onUploadProgress(handler)
        return self
    }

    /// Adds a handler for the source's download progress, run on its callback queue until its terminal event; see
    /// ``RequestContext/onDownloadProgress(_:)``.
    @discardableResult
    public func onDownloadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        source.onDownloadProgress(handler)
        return self
    }
}
