//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Bridges contexts to async/await.
extension RequestContext {
    /// The terminal result, awaited.
    ///
    /// Cancelling the awaiting Task cancels the context (and so the request).
    ///
    /// It returns as soon as the outcome is decided: `onSuccess`/`onError` handlers are queued
    /// on ``RequestContext/queue`` then and may not have run yet, so use the returned model rather
    /// than state such a handler sets.
    ///
    /// - Throws: the error the context ends with, or ``BaseServerError`` with code
    ///   ``BaseServerError/Code-swift.struct/cancelled`` when it is cancelled.
    public var value: Model {
        get async throws { try await awaitOutcome(cancelOnTaskCancel: true) }
    }

    /// The terminal result as a `Result`, awaited; never throws. Cancellation gives
    /// `.failure` with a ``BaseServerError`` coded `cancelled`. Like ``value``, it may return before
    /// the handlers queued on ``RequestContext/queue`` have run.
    public var result: Result<Model, any Error> {
        get async {
            do { return .success(try await value) } catch { return .failure(error) }
        }
    }

    func awaitOutcome(cancelOnTaskCancel: Bool) async throws -> Model {
        let core = core
        guard cancelOnTaskCancel else { return try await awaitOutcomeLeavingContextOnCancel() }
        // The core resumes the continuation itself at the terminal event, which a cancellation
        // of this Task brings about: no waiter object, no observer closure.
        let model = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
                core.await(continuation)
            }
        } onCancel: {
            core.finish(.cancelled)
        }
        return Self.typed(model)
    }

    /// Awaits the outcome; cancelling this Task ends the wait with `cancelled` and leaves the
    /// context running (``ActiveRequestContext``'s chained source).
    private func awaitOutcomeLeavingContextOnCancel() async throws -> Model {
        // The waiter holds the model erased, as the core does: a waiter of `Model` would look up
        // the metadata of its model-generic types on every await.
        let waiter = OneShot<any Sendable>()
        let core = core
        let model = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
                waiter.set(continuation)
                core.observe { outcome in
                    switch outcome {
                    case .success(let model, _): waiter.resume(.success(model))
                    case .failure(let error): waiter.resume(.failure(error))
                    case .cancelled: waiter.resume(.failure(BaseServerError.cancelled))
                    }
                }
            }
        } onCancel: {
            waiter.resume(.failure(BaseServerError.cancelled))
        }
        return Self.typed(model)
    }
}
