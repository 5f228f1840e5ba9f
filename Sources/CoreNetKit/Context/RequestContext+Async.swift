//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

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
