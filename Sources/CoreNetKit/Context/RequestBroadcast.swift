//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// The producer side of ``ActiveRequestContext``s: fans one network call's progress, cached answer and outcome out to
/// every context that joined it.
///
/// A request with no file to stream or download gets a progress-reporting transfer only once a context watches it
/// (``watchedTransfer()``). Not generic (it holds erased ``ContextCore``s); it remembers the model type to refuse a
/// context of another type naming the same request id.
final class RequestBroadcast: IdentifiedPoolMember {
    private struct State {
        var contexts = JoinedContexts()
        var finished = false
        var cached: (any Sendable)?
        /// Typed as throwing (it never throws): see ``start(_:)``.
        var task: Task<Void, any Error>?
        /// Whether the pipeline has returned (``finished`` is also set when every context left).
        var ended = false
        /// Resume data the pipeline ended with, until handed out.
        var resumeData: DownloadResumeData?
        /// Who waits for the pipeline's end (``ActiveRequestContext/cancel(producingResumeData:)``).
        var endWaiters: [@Sendable (DownloadResumeData?) -> Void] = []
        /// The transfer made for progress once a context watched it; dropped at the end.
        var transfer: RequestTransfer?
    }

    let id: String
    /// The model type of the contexts it serves.
    let modelType: ObjectIdentifier
    private let pool: TaskPool
    /// Clock for the progress throttling of a transfer made here.
    private let clock: any NetworkClock
    /// The pool's number for it when the pool made its id (nobody joins it); `nil` when registered by its id.
    private let poolNumber: Int?
    private let locked: Locked<State>

    var identity: ObjectIdentifier { ObjectIdentifier(self) }

    init(
        id: String, modelType: ObjectIdentifier, pool: TaskPool, clock: any NetworkClock, first: ContextCore,
        poolNumber: Int? = nil
    ) {
        self.id = id
        self.modelType = modelType
        self.pool = pool
        self.clock = clock
        self.poolNumber = poolNumber
        self.locked = Locked(State(contexts: JoinedContexts(first)))
    }

    private func leavePool() {
        if let poolNumber {
            pool.removeGenerated(poolNumber)
        } else {
            pool.remove(id: id, member: identity)
        }
    }

    /// Adds `context`; `false` when the call already finished (the caller then starts anew).
    func join(_ context: ContextCore) -> Bool {
        let joined: (ok: Bool, cached: (any Sendable)?) = locked.withLock { state in
            guard !state.finished else { return (false, nil) }
            state.contexts.append(context)
            return (true, state.cached)
        }
        if let cached = joined.cached { context.emitCache(cached) }
        return joined.ok
    }

    /// Records the Task doing the work; cancels it at once if every context already left. Typed as throwing though it
    /// never throws: `Task.init` wraps a non-throwing operation in a throwing one (a thunk and an allocation more).
    func start(_ task: Task<Void, any Error>) {
        let cancelNow: Bool = locked.withLock { state in
            state.task = task
            return state.finished
        }
        if cancelNow { task.cancel() }
    }

    /// Removes a cancelled context; the last one to leave cancels the network call.
    func detach(_ context: ObjectIdentifier) {
        let task: Task<Void, any Error>?? = locked.withLock { state in
            state.contexts.remove(context)
            guard state.contexts.isEmpty, !state.finished else { return nil }
            state.finished = true
            return .some(state.task)
        }
        guard let task else { return }
        leavePool()
        task?.cancel()
    }

    func emitCache(_ model: any Sendable) {
        let contexts: JoinedContexts = locked.withLock { state in
            guard !state.finished else { return JoinedContexts() }
            state.cached = model
            return state.contexts
        }
        for context in contexts { context.emitCache(model) }
    }

    func watchedTransfer() -> RequestTransfer? {
        // Contexts are asked under this lock, cheaper than copying them out (each takes its own lock inside: the only
        // nesting, always in this order; a context never calls a broadcast under its lock).
        let (existing, watched) = locked.withLock { state in
            (state.transfer, state.transfer == nil && !state.finished && state.contexts.watchProgress)
        }
        if let existing { return existing }
        guard watched else { return nil }
        let made = RequestTransfer(clock: clock)
        // The transfer is dropped at `finish`, which ends this reference cycle.
        made.connect { [self] progress, direction in emitProgress(progress, for: direction) }
        return locked.withLock { state in
            guard !state.ended else { return nil }
            if let raced = state.transfer { return raced }
            state.transfer = made
            return made
        }
    }

    func emitProgress(_ progress: TransferProgress, for direction: TransferDirection) {
        let contexts = locked.withLock { $0.finished ? JoinedContexts() : $0.contexts }
        for context in contexts { context.emitProgress(progress, for: direction) }
    }

    /// Delivers the pipeline's outcome to every joined context, leaving the pool first so a request started from a
    /// handler doesn't join this finished one. Resume data goes to end waiters; if every context left and nobody
    /// asked for it, the partial file is removed.
    func finish(_ result: ContextOutcome) {
        leavePool()
        let resumeData = result.resumeData
        let (contexts, waiters, discard) = locked.withLock { state in
            state.ended = true
            state.transfer = nil
            let waiters = state.endWaiters
            state.endWaiters = []
            guard !state.finished else {
                let discard = waiters.isEmpty && resumeData != nil
                state.resumeData = discard ? nil : resumeData
                return (JoinedContexts(), waiters, discard)
            }
            state.finished = true
            state.task = nil
            state.resumeData = resumeData
            defer { state.contexts = JoinedContexts() }
            return (state.contexts, waiters, false)
        }
        if discard { resumeData?.removePartialFile() }
        for waiter in waiters { waiter(resumeData) }
        for context in contexts { context.finish(result) }
    }

    /// Calls `waiter` once with the pipeline's final resume data (`nil` for none) when it ends, at once if it has.
    func whenEnded(_ waiter: @escaping @Sendable (DownloadResumeData?) -> Void) {
        let ended: DownloadResumeData?? = locked.withLock { state in
            guard state.ended else {
                state.endWaiters.append(waiter)
                return nil
            }
            return .some(state.resumeData)
        }
        if let ended { waiter(ended) }
    }

    func cancelAll() {
        let contexts = locked.withLock { $0.contexts }
        for context in contexts { context.finish(.cancelled) }
    }
}

/// The contexts joined to one call, in join order; the first held inline so a lone call allocates no array.
struct JoinedContexts: Sequence {
    private var first: ContextCore?
    private var rest: [ContextCore] = []

    init() {}

    init(_ first: ContextCore) { self.first = first }

    var isEmpty: Bool { first == nil && rest.isEmpty }

    /// Whether any of them watches progress (``ContextCore/watchesProgress``, under its lock).
    var watchProgress: Bool { first?.watchesProgress == true || rest.contains { $0.watchesProgress } }

    mutating func append(_ context: ContextCore) {
        if isEmpty {
            first = context
        } else {
            rest.append(context)
        }
    }

    /// Removes the context with identity `id`, keeping the order of the others.
    mutating func remove(_ id: ObjectIdentifier) {
        if let first, first.id == id {
            self.first = rest.isEmpty ? nil : rest.removeFirst()
        } else {
            rest.removeAll { $0.id == id }
        }
    }

    func makeIterator() -> Iterator { Iterator(first: first, rest: rest.makeIterator()) }

    struct Iterator: IteratorProtocol {
        var first: ContextCore?
        var rest: IndexingIterator<[ContextCore]>

        mutating func next() -> ContextCore? { first.take() ?? rest.next() }
    }
}
