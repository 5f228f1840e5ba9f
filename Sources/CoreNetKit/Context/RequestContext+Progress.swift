//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Upload and download progress.
extension RequestContext {
    /// Adds a handler for the progress of the request body going out.
    ///
    /// Runs on the callback queue, any number of times until the terminal event and never after
    /// it (nor after ``cancel()``). Values never go down, come at most about 30 times a second,
    /// and a successful request delivers a last one with ``TransferProgress/fraction`` `1.0`
    /// before `onSuccess` — also when there was no body. A handler attached late first gets the
    /// latest value at once. A context made by ``map(_:)`` delivers the progress of its source;
    /// one made by ``flatMap(_:)`` that of the request currently running: the first one's, then,
    /// once it succeeded, the second one's, starting again from its first value.
    ///
    /// ```swift
    /// UploadPhotoRequest(file: url).perform()
    ///     .onUploadProgress { progress in bar.value = progress.fraction }
    ///     .onSuccess { photo in show(photo) }
    /// ```
    @discardableResult
    public func onUploadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        addProgressHandler(handler, for: .upload)
        return self
    }

    /// Adds a handler for the progress of the response body coming in.
    ///
    /// Runs on the callback queue, any number of times until the terminal event and never after
    /// it (nor after ``cancel()``). Values never go down, come at most about 30 times a second,
    /// and a successful request delivers a last one with ``TransferProgress/fraction`` `1.0`
    /// before `onSuccess`. While the response has no `Content-Length`,
    /// ``TransferProgress/totalBytes`` is `nil` and the fraction stays `0.0` until the end.
    /// Contexts made by ``map(_:)`` and ``flatMap(_:)`` forward it as ``onUploadProgress(_:)``
    /// says.
    @discardableResult
    public func onDownloadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        addProgressHandler(handler, for: .download)
        return self
    }

    /// Delivers `progress` to the handlers of `direction`, unless the context has ended or the
    /// value does not move forward.
    func emitProgress(_ progress: TransferProgress, for direction: TransferDirection) {
        core.emitProgress(progress, for: direction)
    }

    /// Whether anyone watches this context's progress: a handler, or a chained context.
    var watchesProgress: Bool { core.watchesProgress }

    /// Makes `next` deliver this context's progress from now on, starting with the latest values.
    func forwardProgress<T: Sendable>(to next: RequestContext<T>) {
        core.forwardProgress(to: next.core)
    }

    /// Forgets the last progress values, so the progress of a next stage (``flatMap(_:)``) that
    /// starts again from zero is delivered.
    func restartProgress() {
        core.restartProgress()
    }

    private func addProgressHandler(
        _ handler: @escaping @Sendable (TransferProgress) -> Void,
        for direction: TransferDirection
    ) {
        core.addProgressHandler(handler, for: direction)
    }
}

/// Upload and download progress of the source context.
extension PassiveRequestContext {
    /// Adds a handler for the upload progress of the source context; see
    /// ``RequestContext/onUploadProgress(_:)`` for when it runs (on the source's callback
    /// queue, until its terminal event).
    @discardableResult
    public func onUploadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        source.onUploadProgress(handler)
        return self
    }

    /// Adds a handler for the download progress of the source context; see
    /// ``RequestContext/onDownloadProgress(_:)`` for when it runs (on the source's callback
    /// queue, until its terminal event).
    @discardableResult
    public func onDownloadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        source.onDownloadProgress(handler)
        return self
    }
}
