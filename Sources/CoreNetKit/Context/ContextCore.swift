//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// The type-erased machinery of one context: outcome, handlers, progress and ordered delivery on the callback queue.
///
/// ``RequestContext`` is a typed façade over it; ``RequestBroadcast`` talks to cores directly. Not generic, so nothing
/// looks up model-generic metadata at run time. Every handler runs through ``async(_:)``: one at a time, in enqueue
/// order, even on a concurrent queue, so a cached result always reaches handlers before the terminal event. Copies
/// are the same core (one ``Locked`` state).
struct ContextCore: Sendable {
    let queue: DispatchQueue
    private let locked = Locked(ContextState())

    init(queue: DispatchQueue) { self.queue = queue }

    /// Identity shared by copies of one core.
    var id: ObjectIdentifier { locked.identity }

    // MARK: Ordered delivery

    /// Runs `block` on ``queue`` after every block enqueued before it.
    func async(_ block: @escaping @Sendable () -> Void) {
        if locked.withLock({ $0.pending.append(block) }) { queue.async { self.drain() } }
    }

    private func drain() {
        while case let blocks = locked.withLock({ $0.pending.take() }), !blocks.isEmpty {
            for block in blocks { block() }
        }
    }

    // MARK: State

    var isFinished: Bool { locked.withLock { $0.isFinished } }

    var isFromCache: Bool {
        locked.withLock { if case .success(_, let fromCache) = $0.outcome { fromCache } else { false } }
    }

    var isCancelled: Bool { locked.withLock { if case .cancelled = $0.outcome { true } else { false } } }

    // MARK: Handlers

    /// Stores a handler with `add` while the context runs; after the terminal event, returns the outcome instead.
    private func whileRunning(_ add: (inout ContextState) -> Void) -> ContextOutcome? {
        locked.withLock { state in
            guard state.isFinished else {
                add(&state)
                return nil
            }
            return state.outcome
        }
    }

    func onSuccess(_ handler: @escaping @Sendable (any Sendable) -> Void) {
        if case .success(let model, _)? = whileRunning({ $0.terminal.success.append(handler) }) {
            async { handler(model) }
        }
    }

    func onError(_ handler: @escaping @Sendable (any Error) -> Void) {
        if case .failure(let error)? = whileRunning({ $0.terminal.failure.append(handler) }) {
            async { handler(error) }
        }
    }

    /// `handler` gets `.success` or `.failure`, never `.cancelled`.
    func onCompleted(_ handler: @escaping @Sendable (ContextOutcome) -> Void) {
        guard let outcome = whileRunning({ $0.terminal.completed.append(handler) }) else { return }
        if case .cancelled = outcome { return }
        async { handler(outcome) }
    }

    func onCacheSuccess(_ handler: @escaping @Sendable (any Sendable) -> Void) {
        let cached: (any Sendable)? = locked.withLock { state in
            if !state.isFinished, state.cached == nil { state.cache.append(handler) }
            return state.cached
        }
        if let cached { async { handler(cached) } }
    }

    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        if case .cancelled? = whileRunning({ $0.terminal.cancel.append(handler) }) { async { handler() } }
    }

    // MARK: Producer

    /// Delivers a cached result to `onCacheSuccess` handlers; ignored once finished or after a first cached result.
    func emitCache(_ data: any Sendable) {
        let taken: (handlers: [@Sendable (any Sendable) -> Void], observers: [@Sendable (any Sendable) -> Void])? =
            locked.withLock { state in
                guard !state.isFinished, state.cached == nil else { return nil }
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
        async { for handler in handlers { handler(data) } }
    }

    /// Records the terminal outcome once and delivers it: observers inline, handlers on the queue.
    func finish(_ outcome: ContextOutcome) {
        let recipients: TerminalRecipients? = locked.withLock { state in
            guard !state.isFinished else { return nil }
            state.finish(with: outcome)
            return state.takeRecipients()
        }
        // Moved out of the optional: a plain `guard let` would copy every list (and destroy both).
        guard let taken = consume recipients else { return }
        if case .cancelled = outcome { taken.cancelAction?.perform(for: self) }
        if let waiter = taken.waiter { waiter.resume(with: outcome.result) }
        for waiter in taken.moreWaiters { waiter.resume(with: outcome.result) }
        for observer in taken.observers { observer(outcome) }
        switch outcome {
        case .success:
            // Match the case before binding the model: binding copies it, which an awaited-only context needn't pay.
            guard !taken.success.isEmpty || !taken.completed.isEmpty, case .success(let model, _) = outcome
            else { return }
            async {
                for handler in taken.success { handler(model) }
                for handler in taken.completed { handler(outcome) }
            }
        case .failure(let error):
            guard !taken.failure.isEmpty || !taken.completed.isEmpty else { return }
            async {
                for handler in taken.failure { handler(error) }
                for handler in taken.completed { handler(outcome) }
            }
        case .cancelled:
            guard !taken.cancel.isEmpty else { return }
            async { for handler in taken.cancel { handler() } }
        }
    }

    // MARK: Internal wiring

    /// Sets what cancelling stops; if the context is already cancelled, runs it at once.
    func setCancelAction(_ action: CancelAction) {
        if case .cancelled? = whileRunning({ $0.terminal.cancelAction = action }) { action.perform(for: self) }
    }

    /// Calls `observer` inline with the terminal outcome, at once if it already happened.
    func observe(_ observer: @escaping @Sendable (ContextOutcome) -> Void) {
        if let outcome = whileRunning({ $0.terminal.observers.append(observer) }) { observer(outcome) }
    }

    /// Resumes `waiter` with the terminal outcome (cancellation throws ``BaseServerError`` `cancelled`), at once if
    /// it already happened. Kept without a closure or list around it, unlike an observer.
    func await(_ waiter: CheckedContinuation<any Sendable, any Error>) {
        let outcome = whileRunning { state in
            if state.terminal.waiter == nil {
                state.terminal.waiter = waiter
            } else {
                state.terminal.moreWaiters.append(waiter)
            }
        }
        if let outcome { waiter.resume(with: outcome.result) }
    }

    /// Whether an internal observer or an awaiting Task waits for the outcome (for chaining tests).
    var isObserved: Bool { locked.withLock { !$0.terminal.observers.isEmpty || $0.terminal.waiter != nil } }

    /// Calls `observer` inline with the cached result when it is emitted (or at once).
    func observeCache(_ observer: @escaping @Sendable (any Sendable) -> Void) {
        let cached: (any Sendable)? = locked.withLock { state in
            if state.cached == nil, !state.isFinished { state.cacheObservers.append(observer) }
            return state.cached
        }
        if let cached { observer(cached) }
    }

    var resumeDataSource: (@Sendable (@escaping @Sendable (DownloadResumeData?) -> Void) -> Void)? {
        get { locked.withLock { $0.resumeDataSource } }
        nonmutating set { locked.withLock { $0.resumeDataSource = newValue } }
    }

    // MARK: Progress

    /// Delivers `progress` to `direction`'s handlers unless the context ended or the value does not move forward.
    func emitProgress(_ progress: TransferProgress, for direction: TransferDirection) {
        let (observers, schedule) = locked.withLock {
            state -> ([@Sendable (TransferProgress, TransferDirection) -> Void], Bool) in
            guard !state.isFinished else { return ([], false) }
            let last = direction == .upload ? state.lastUpload : state.lastDownload
            if let last, !progress.isAhead(of: last) { return ([], false) }
            let handlers: [@Sendable (TransferProgress) -> Void]
            switch direction {
            case .upload:
                state.lastUpload = progress
                handlers = state.uploadProgress
            case .download:
                state.lastDownload = progress
                handlers = state.downloadProgress
            }
            // Enqueued under the lock: `finish` sets `outcome` under it before enqueuing the terminal handlers, so
            // progress enqueued here always runs before them and none after.
            var schedule = false
            if !handlers.isEmpty {
                schedule = state.pending.append { for handler in handlers { handler(progress) } }
            }
            return (state.progressObservers, schedule)
        }
        if schedule { queue.async { self.drain() } }
        // Inline: a chained context gets the value before this context's outcome, which comes later from this thread.
        for observer in observers { observer(progress, direction) }
    }

    /// Whether anyone watches this context's progress: a handler, or a chained context.
    var watchesProgress: Bool {
        locked.withLock { !$0.uploadProgress.isEmpty || !$0.downloadProgress.isEmpty || !$0.progressObservers.isEmpty }
    }

    /// Makes `next` deliver this context's progress from now on, starting with the latest values.
    func forwardProgress(to next: ContextCore) {
        let latest = locked.withLock { state -> [(TransferProgress, TransferDirection)] in
            guard !state.isFinished else { return [] }
            state.progressObservers.append { progress, direction in next.emitProgress(progress, for: direction) }
            return [state.lastUpload.map { ($0, .upload) }, state.lastDownload.map { ($0, .download) }]
                .compactMap { $0 }
        }
        for (progress, direction) in latest { next.emitProgress(progress, for: direction) }
    }

    /// Forgets the last progress values so a next stage (`flatMap`) restarting from zero is delivered.
    func restartProgress() {
        locked.withLock { state in
            state.lastUpload = nil
            state.lastDownload = nil
        }
    }

    func addProgressHandler(_ handler: @escaping @Sendable (TransferProgress) -> Void, for direction: TransferDirection)
    {
        let schedule: Bool = locked.withLock { state in
            guard !state.isFinished else { return false }
            let last: TransferProgress?
            switch direction {
            case .upload:
                state.uploadProgress.append(handler)
                last = state.lastUpload
            case .download:
                state.downloadProgress.append(handler)
                last = state.lastDownload
            }
            // Under the lock for the same reason as in `emitProgress`.
            guard let last else { return false }
            return state.pending.append { handler(last) }
        }
        if schedule { queue.async { self.drain() } }
    }
}
