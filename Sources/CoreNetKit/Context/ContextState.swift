//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// How a context (or its pipeline) ended, with the model's type erased. Not generic on purpose: everything between
/// pipeline and handlers uses it, so no model-generic metadata is looked up at run time; ``RequestContext`` casts the
/// model back once, where a handler receives it.
enum ContextOutcome: Sendable {
    /// The model, and whether it came from the cache; decided once, by whoever finishes the context.
    case success(any Sendable, fromCache: Bool)
    case failure(any Error)
    case cancelled

    /// What an awaiting Task gets: cancellation throws ``BaseServerError`` `cancelled`.
    var result: Result<any Sendable, any Error> {
        switch self {
        case .success(let model, _): .success(model)
        case .failure(let error): .failure(error)
        case .cancelled: .failure(BaseServerError.cancelled)
        }
    }
}

/// A context's mutable state, under one lock; handlers are stored erased.
struct ContextState {
    /// The terminal outcome, set once (``finish(with:)``).
    private(set) var outcome: ContextOutcome?
    /// Whether ``outcome`` is set, kept apart: even testing the optional for `nil` copies its existential payload.
    private(set) var isFinished = false
    var cached: (any Sendable)?
    /// Handlers and waiters of the terminal event, moved out at once when it comes.
    var terminal = TerminalRecipients()
    var cache: [@Sendable (any Sendable) -> Void] = []
    /// Internal observers run inline on the emitting thread (bridges, chaining), as are `terminal.observers`.
    var cacheObservers: [@Sendable (any Sendable) -> Void] = []
    /// Progress handlers and the last value delivered to them (RequestContext+Progress).
    var uploadProgress: [@Sendable (TransferProgress) -> Void] = []
    var downloadProgress: [@Sendable (TransferProgress) -> Void] = []
    var lastUpload: TransferProgress?
    var lastDownload: TransferProgress?
    /// Internal progress observers run inline on the emitting thread (chaining).
    var progressObservers: [@Sendable (TransferProgress, TransferDirection) -> Void] = []
    /// Registers a waiter for a download pipeline's end; kept past the terminal event, when it is asked for.
    var resumeDataSource: (@Sendable (@escaping @Sendable (DownloadResumeData?) -> Void) -> Void)?
    /// Blocks to run on the callback queue in order (``ContextCore/async(_:)``).
    var pending = PendingBlocks()

    mutating func finish(with outcome: ContextOutcome) {
        self.outcome = outcome
        isFinished = true
    }

    /// Moves out what the terminal event goes to and empties the other handler lists, so nothing is retained.
    /// Moved, not copied: copying the whole state cost more than delivering the event.
    mutating func takeRecipients() -> TerminalRecipients {
        var taken = TerminalRecipients()
        swap(&taken, &terminal)
        cache = []
        cacheObservers = []
        uploadProgress = []
        downloadProgress = []
        progressObservers = []
        return taken
    }
}

/// What a context's terminal event goes to, taken out under the lock and called outside it.
struct TerminalRecipients {
    /// Tasks awaiting ``RequestContext/value``: the first in its own slot (no list allocated), the rest after it.
    var waiter: CheckedContinuation<any Sendable, any Error>?
    var moreWaiters: [CheckedContinuation<any Sendable, any Error>] = []
    var observers: [@Sendable (ContextOutcome) -> Void] = []
    var success: [@Sendable (any Sendable) -> Void] = []
    var failure: [@Sendable (any Error) -> Void] = []
    var completed: [@Sendable (ContextOutcome) -> Void] = []
    var cancel: [@Sendable () -> Void] = []
    /// Stops the work behind the context; dropped at the terminal event.
    var cancelAction: CancelAction?
}

/// What cancelling a context stops: a closure (chaining) or the joined network call, held directly so a request
/// allocates no closure for it.
enum CancelAction: Sendable {
    case run(@Sendable () -> Void)
    case leave(RequestBroadcast)

    /// Stops the work for `context`.
    func perform(for context: ContextCore) {
        switch self {
        case .run(let action): action()
        case .leave(let broadcast): broadcast.detach(context.id)
        }
    }
}

/// Blocks waiting to run in order and whether a drain is scheduled (``ContextCore/async(_:)``), under the owner's lock.
struct PendingBlocks {
    private var blocks: [@Sendable () -> Void] = []
    private var drainScheduled = false

    /// Adds `block`; `true` when the caller must schedule a drain (outside the lock).
    mutating func append(_ block: @escaping @Sendable () -> Void) -> Bool {
        blocks.append(block)
        guard !drainScheduled else { return false }
        drainScheduled = true
        return true
    }

    /// The blocks to run next, in order; when none are left, the drain ends (the next block schedules another).
    mutating func take() -> [@Sendable () -> Void] {
        defer { blocks = [] }
        if blocks.isEmpty { drainScheduled = false }
        return blocks
    }
}
