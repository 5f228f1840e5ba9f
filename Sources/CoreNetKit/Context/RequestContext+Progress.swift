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
    /// Runs on the callback queue, any number of times until the terminal event, never after it (nor after
    /// ``cancel()``). Values never go down, come at most about 30 times a second, and a successful request delivers a
    /// last one with ``TransferProgress/fraction`` `1.0` before `onSuccess`, also with no body. A handler attached late
    /// first gets the latest value at once. A ``map(_:)`` context delivers its source's progress; a ``flatMap(_:)``
    /// one the running request's: the first's, then the second's, starting again from its first value.
    ///
    /// ```swift
    /// UploadPhotoRequest(file: url).perform()
    ///     .onUploadProgress { progress in bar.value = progress.fraction }
    ///     .onSuccess { photo in show(photo) }
    /// ```
    @discardableResult
    public func onUploadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        core.addProgressHandler(handler, for: .upload)
        return self
    }

    /// Adds a handler for the progress of the response body coming in.
    ///
    /// Runs on the callback queue until the terminal event or ``cancel()``, by the rules of ``onUploadProgress(_:)``
    /// (rate, never down, a last `1.0` before `onSuccess`, chaining). Without a `Content-Length`,
    /// ``TransferProgress/totalBytes`` is `nil` and the fraction stays `0.0` until the end.
    @discardableResult
    public func onDownloadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        core.addProgressHandler(handler, for: .download)
        return self
    }

    func emitProgress(_ progress: TransferProgress, for direction: TransferDirection) {
        core.emitProgress(progress, for: direction)
    }
}

/// Upload and download progress of the source context.
extension PassiveRequestContext {
    /// Adds a handler for the source's upload progress, run on its callback queue until its terminal event; see
    /// ``RequestContext/onUploadProgress(_:)``.
    @discardableResult
    public func onUploadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        source.onUploadProgress(handler)
        return self
    }

    /// Adds a handler for the source's download progress, run on its callback queue until its terminal event; see
    /// ``RequestContext/onDownloadProgress(_:)``.
    @discardableResult
    public func onDownloadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        source.onDownloadProgress(handler)
        return self
    }
}
