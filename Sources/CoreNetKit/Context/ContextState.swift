//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// How a context (or the pipeline behind it) ended, with the model's type erased.
///
/// Not generic on purpose: everything between the pipeline and a context's handlers works on this
/// type, so a request of a model the library was not compiled for looks up no metadata of
/// model-generic types at run time. The typed façade (``RequestContext``) casts the model back
/// once, where a handler receives it.
enum ContextOutcome: Sendable {
    /// The model, and whether it was read from the cache rather than the server: decided once,
    /// by whoever finishes the context, and carried with the model.
    case success(any Sendable, fromCache: Bool)
    case failure(any Error)
    case cancelled
}

/// The mutable state of a context, kept in one lock. Handlers are stored erased, as the typed
/// façade wrapped them.
struct ContextState {
    /// The terminal outcome, set once (``finish(with:)``).
    private(set) var outcome: ContextOutcome?
    /// Whether ``outcome`` is set, kept beside it: reading the optional outcome, even only to
    /// test it for `nil`, copies it (its existential payload through value witnesses).
    private(set) var isFinished = false
    var cached: (any Sendable)?
    var success: [@Sendable (any Sendable) -> Void] = []
    var failure: [@Sendable (any Error) -> Void] = []
    /// `onCompleted` handlers: they get `.success` or `.failure`, never `.cancelled`.
    var completed: [@Sendable (ContextOutcome) -> Void] = []
    var cache: [@Sendable (any Sendable) -> Void] = []
    var cancel: [@Sendable () -> Void] = []
    /// Internal observers run inline on the emitting thread (bridges, chaining).
    var cacheObservers: [@Sendable (any Sendable) -> Void] = []
    var observers: [@Sendable (ContextOutcome) -> Void] = []
    /// Tasks awaiting ``RequestContext/value`` (``ContextCore/await(_:)``): the first in its own
    /// slot, so awaiting a context allocates no list, the others after it.
    var waiter: CheckedContinuation<any Sendable, any Error>?
    var moreWaiters: [CheckedContinuation<any Sendable, any Error>] = []
    /// Stops the work behind the context; dropped at the terminal event.
    var cancelAction: CancelAction?
    /// Progress handlers and the last value delivered to them (RequestContext+Progress).
    var uploadProgress: [@Sendable (TransferProgress) -> Void] = []
    var downloadProgress: [@Sendable (TransferProgress) -> Void] = []
    var lastUpload: TransferProgress?
    var lastDownload: TransferProgress?
    /// Internal progress observers run inline on the emitting thread (chaining).
    var progressObservers: [@Sendable (TransferProgress, TransferDirection) -> Void] = []
    /// Registers a waiter for the end of a download's pipeline (an ``ActiveRequestContext`` of
    /// a download); kept after the terminal event, which is when it is asked for.
    var resumeDataSource: (@Sendable (@escaping @Sendable (DownloadResumeData?) -> Void) -> Void)?
    /// Blocks waiting to run on the callback queue, in order (``ContextCore/async(_:)``), and
    /// whether a drain of them is scheduled there.
    var pending: [@Sendable () -> Void] = []
    var drainScheduled = false

    /// Records the terminal outcome.
    mutating func finish(with outcome: ContextOutcome) {
        self.outcome = outcome
        isFinished = true
    }

    /// Takes out everything the terminal event goes to and empties every other handler list, so
    /// nothing is retained after it. The lists are moved out, not copied: a copy of the whole
    /// state (its twenty fields retained, then released) cost more than delivering the event.
    mutating func takeRecipients() -> TerminalRecipients {
        var taken = TerminalRecipients()
        swap(&taken.waiter, &waiter)
        swap(&taken.moreWaiters, &moreWaiters)
        swap(&taken.observers, &observers)
        swap(&taken.success, &success)
        swap(&taken.failure, &failure)
        swap(&taken.completed, &completed)
        swap(&taken.cancel, &cancel)
        swap(&taken.cancelAction, &cancelAction)
        cache = []
        cacheObservers = []
        uploadProgress = []
        downloadProgress = []
        progressObservers = []
        return taken
    }
}

/// What a context's terminal event goes to, taken out of its state under the lock
/// (ContextState/takeRecipients()) and called outside it.
struct TerminalRecipients {
    var waiter: CheckedContinuation<any Sendable, any Error>?
    var moreWaiters: [CheckedContinuation<any Sendable, any Error>] = []
    var observers: [@Sendable (ContextOutcome) -> Void] = []
    var success: [@Sendable (any Sendable) -> Void] = []
    var failure: [@Sendable (any Error) -> Void] = []
    var completed: [@Sendable (ContextOutcome) -> Void] = []
    var cancel: [@Sendable () -> Void] = []
    var cancelAction: CancelAction?
}

/// What cancelling a context stops: a closure (chaining), or the network call the context joined
/// (``BaseServerRequest/perform()``), held directly so that every request does not allocate a
/// closure for it.
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
