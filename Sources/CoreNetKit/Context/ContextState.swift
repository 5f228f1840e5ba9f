//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// How a context ended.
enum ContextOutcome<Model: Sendable>: Sendable {
    /// The model, and whether it was read from the cache rather than the server: decided once,
    /// by whoever finishes the context, and carried with the model.
    case success(Model, fromCache: Bool)
    case failure(any Error)
    case cancelled
}

/// The mutable state of a context, kept in one lock.
struct ContextState<Model: Sendable> {
    var outcome: ContextOutcome<Model>?
    var cached: Model?
    var success: [@Sendable (Model) -> Void] = []
    var failure: [@Sendable (any Error) -> Void] = []
    var completed: [@Sendable (Result<Model, any Error>) -> Void] = []
    var cache: [@Sendable (Model) -> Void] = []
    var cancel: [@Sendable () -> Void] = []
    /// Internal observers run inline on the emitting thread (bridges, chaining).
    var cacheObservers: [@Sendable (Model) -> Void] = []
    var observers: [@Sendable (ContextOutcome<Model>) -> Void] = []
    /// Stops the work behind the context; dropped at the terminal event.
    var cancelAction: (@Sendable () -> Void)?
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

    /// Empties every handler list, so nothing is retained after the terminal event.
    mutating func clearHandlers() {
        success = []
        failure = []
        completed = []
        cache = []
        cancel = []
        cacheObservers = []
        observers = []
        cancelAction = nil
        uploadProgress = []
        downloadProgress = []
        progressObservers = []
    }
}
