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
    /// latest value at once. Progress is delivered by contexts that ``BaseServerRequest/perform()``
    /// returns; contexts made by ``map(_:)`` and ``flatMap(_:)`` do not forward it.
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
    @discardableResult
    public func onDownloadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        addProgressHandler(handler, for: .download)
        return self
    }

    /// Delivers `progress` to the handlers of `direction`, unless the context has ended or the
    /// value does not move forward.
    func emitProgress(_ progress: TransferProgress, for direction: TransferDirection) {
        state.withLock { state in
            guard state.outcome == nil else { return }
            let last = direction == .upload ? state.lastUpload : state.lastDownload
            if let last, !progress.isAhead(of: last) { return }
            let handlers: [@Sendable (TransferProgress) -> Void]
            switch direction {
            case .upload:
                state.lastUpload = progress
                handlers = state.uploadProgress
            case .download:
                state.lastDownload = progress
                handlers = state.downloadProgress
            }
            guard !handlers.isEmpty else { return }
            // Enqueued under the lock on purpose: `finish` sets `outcome` under this lock before it
            // enqueues the terminal handlers on the same serial queue, so progress enqueued here
            // always runs before them and none can be enqueued after.
            delivery.async { for handler in handlers { handler(progress) } }
        }
    }

    private func addProgressHandler(
        _ handler: @escaping @Sendable (TransferProgress) -> Void,
        for direction: TransferDirection
    ) {
        state.withLock { state in
            guard state.outcome == nil else { return }
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
            if let last { delivery.async { handler(last) } }
        }
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
