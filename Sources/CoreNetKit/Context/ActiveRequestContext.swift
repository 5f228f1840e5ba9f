//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// The context ``BaseServerRequest/perform()`` returns: a ``RequestContext`` for one request in flight.
///
/// Knows its ``TaskPool`` id and cancels the request on the wire on ``RequestContext/cancel()``. Only the request's
/// pipeline can finish it. It keeps itself and its request alive until its terminal event, so callers need not hold it.
///
/// ```swift
/// GetUserRequest(id: 1).perform()
///     .onSuccess { user in show(user) }         // once, on the callback queue
///     .onError { error in present(error) }      // once, on the callback queue
/// ```
public final class ActiveRequestContext<Model: Sendable>: RequestContext<Model>,
    @unchecked Sendable  // safe: adds only the `let` requestId; its mutable state is behind the base's `core`
{
    /// The request's id in the ``TaskPool``.
    public let requestId: String

    init(requestId: String, queue: DispatchQueue) {
        self.requestId = requestId
        super.init(queue: queue)
    }

    /// Cancels the request like ``RequestContext/cancel()`` and hands back what it takes to resume its download: the
    /// partial file and its validator.
    ///
    /// `completion` runs once, on ``RequestContext/queue``, after the transport has stopped writing. It gets `nil`
    /// when the request is not a download with ``ServerRequest/keepsPartialDownload`` (or
    /// ``ServerRequest/resumeData``), when nothing resumable arrived, when the download goes on for other joined
    /// contexts, or when it had already succeeded. A plain ``RequestContext/cancel()`` removes the partial file.
    public func cancel(producingResumeData completion: @escaping @Sendable (DownloadResumeData?) -> Void) {
        let core = core
        cancelCollectingResumeData { data in core.async { completion(data) } }
    }

    /// Cancels the request and returns the resume data of its download; see
    /// ``cancel(producingResumeData:)``. Returns once the transport has stopped writing.
    public func cancelProducingResumeData() async -> DownloadResumeData? {
        await withCheckedContinuation { continuation in
            cancelCollectingResumeData { continuation.resume(returning: $0) }
        }
    }

    /// Registers `receive` for the pipeline's end before cancelling, lest it miss it; `nil` at once if no download.
    private func cancelCollectingResumeData(_ receive: @escaping @Sendable (DownloadResumeData?) -> Void) {
        let source = core.resumeDataSource
        source?(receive)
        cancel()
        if source == nil { receive(nil) }
    }

    static func failed(_ error: any Error, requestId: String, queue: DispatchQueue) -> ActiveRequestContext<Model> {
        let context = ActiveRequestContext(requestId: requestId, queue: queue)
        context.emit(error: error)
        return context
    }
}

/// A read-only view of another context, for callers that may watch a result but must not feed or cancel it.
///
/// Handlers run on the source context's queue, under the same rules.
public final class PassiveRequestContext<Model: Sendable>: PassiveContext {
    let source: RequestContext<Model>

    /// Creates a read-only view of `source`.
    public init(_ source: RequestContext<Model>) { self.source = source }

    /// The queue every handler runs on.
    public var queue: DispatchQueue { source.queue }

    /// Whether the source's success was read from the cache; see ``RequestContext/isFromCache``.
    public var isFromCache: Bool { source.isFromCache }

    @discardableResult
    public func onSuccess(_ handler: @escaping @Sendable (Model) -> Void) -> Self {
        source.onSuccess(handler)
        return self
    }

    @discardableResult
    public func onError(_ handler: @escaping @Sendable (any Error) -> Void) -> Self {
        source.onError(handler)
        return self
    }

    @discardableResult
    public func onCompleted(_ handler: @escaping @Sendable (Result<Model, any Error>) -> Void) -> Self {
        source.onCompleted(handler)
        return self
    }

    @discardableResult
    public func onCacheSuccess(_ handler: @escaping @Sendable (Model) -> Void) -> Self {
        source.onCacheSuccess(handler)
        return self
    }

    /// The result, awaited; see ``RequestContext/value``. Cancelling the awaiting Task does not cancel the source.
    public var value: Model {
        get async throws { try await source.awaitOutcomeLeavingContextOnCancel() }
    }
}
