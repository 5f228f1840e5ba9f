//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Chaining one result into the next.
extension RequestContext {
    /// A context that delivers `transform` applied to this context's result.
    ///
    /// Errors pass through; an error thrown by `transform` becomes the new context's error. A cached result is
    /// transformed and delivered through `onCacheSuccess`; ``isFromCache`` and upload/download progress are forwarded.
    /// Cancelling the new context cancels this one. `transform` runs once, off the callback queue, on the thread that
    /// delivered the result.
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Model) throws -> T) -> ActiveRequestContext<T> {
        let next = ActiveRequestContext<T>(requestId: chainedId, queue: queue)
        next.setCancelAction { [self] in self.cancel() }
        core.forwardProgress(to: next.core)
        observeCache { model in
            if let mapped = try? transform(model) { next.emitCache(data: mapped) }
        }
        observe { outcome in
            switch outcome {
            case .success(let model, let fromCache):
                do { next.emit(data: try transform(Self.typed(model)), fromCache: fromCache) } catch {
                    next.emit(error: error)
                }
            case .failure(let error): next.emit(error: error)
            case .cancelled: next.cancel()
            }
        }
        return next
    }

    /// A context for a second piece of work started with this context's result, e.g. login, then the profile.
    ///
    /// `transform` runs once, after this context succeeds, off the callback queue; the new context then delivers the
    /// second context's terminal event (and its ``isFromCache``). An error of either ends it; cancelling it cancels
    /// whichever stage is running. Progress handlers get the running stage's progress: this context's, then the
    /// second's, restarting from its first value (e.g. 0 %); a handler attached late gets the running stage's latest.
    public func flatMap<T: Sendable>(
        _ transform: @escaping @Sendable (Model) -> RequestContext<T>
    ) -> ActiveRequestContext<T> {
        let next = ActiveRequestContext<T>(requestId: chainedId, queue: queue)
        next.setCancelAction { [self] in self.cancel() }
        core.forwardProgress(to: next.core)
        observe { outcome in
            switch outcome {
            case .success(let model, _):
                let second = transform(Self.typed(model))
                next.setCancelAction { second.cancel() }
                next.core.restartProgress()
                second.core.forwardProgress(to: next.core)
                // The second context's outcome is already erased and of `T`: passed on as it is.
                second.observe { outcome in next.core.finish(outcome) }
            case .failure(let error): next.emit(error: error)
            case .cancelled: next.cancel()
            }
        }
        return next
    }

    private var chainedId: String {
        (self as? ActiveRequestContext<Model>).map { $0.requestId + ".chained" } ?? "chained"
    }
}
