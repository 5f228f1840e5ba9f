//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``: `URLSession` with its own session and delegate.
///
/// The session is CoreNetKit's own, configured for an API client: no `URLCache` (CoreNetKit
/// caches through ``CacheAdapter``; FoundationNetworking never stores responses in it anyway),
/// and on Linux at most 4 connections per host, which keeps libcurl from dropping and
/// reopening connections under load. Cancelling the awaiting Task cancels the
/// `URLSessionTask`. On a redirect to another origin the `Authorization`,
/// `Proxy-Authorization` and `Cookie` headers are removed.
public final class URLSessionTransport: Transport {
    /// The session requests go through.
    public let session: URLSession
    private let delegate: SessionDelegate

    /// The configuration CoreNetKit uses when none is given: no URL cache, cache policy
    /// `.reloadIgnoringLocalCacheData`, a 60 s request timeout and, on Linux, at most 4
    /// connections per host.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 60
        #if canImport(FoundationNetworking)
        configuration.httpMaximumConnectionsPerHost = 4
        #endif
        return configuration
    }

    /// Creates a transport over a new session with `configuration`.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration()) {
        let delegate = SessionDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "CoreNetKit.URLSessionTransport"
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let task: URLSessionTask
        if let file = request.bodyFileURL {
            task = session.uploadTask(with: request.urlRequest, fromFile: file)
        } else {
            task = session.dataTask(with: request.urlRequest)
        }
        let box = TaskBox(task)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<TransportResponse, any Error>) in
                let state = TaskState(request: request, continuation: continuation)
                delegate.register(state, for: task.taskIdentifier)
                if Task.isCancelled {
                    task.cancel()
                }
                task.resume()
            }
        } onCancel: {
            box.task.cancel()
        }
    }
}

/// Carries a `URLSessionTask` into the cancellation handler.
private struct TaskBox: @unchecked Sendable {  // safe: `URLSessionTask.cancel()` is thread-safe
    let task: URLSessionTask
    init(_ task: URLSessionTask) { self.task = task }
}
