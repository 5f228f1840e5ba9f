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
/// `Proxy-Authorization` and `Cookie` headers are removed. The session keeps no cookies of its
/// own (see ``NetworkConfiguration/cookieStorage``), as `AsyncHTTPClientTransport` keeps none.
///
/// ## Connections per host and the timeout
///
/// With `maximumConnectionsPerHost` set (4 on Linux by default), at most that many requests per
/// host are handed to the session at once; the others wait in the transport, in order, until a
/// connection is free. The request timeout starts when a request is handed to the session, so
/// it bounds the exchange itself and never the time spent queueing behind slow responses
/// (inside libcurl's own queue it would: a request waiting for one of 4 busy connections timed
/// out while healthy). Waiting is not bounded by the timeout: cancel the request to give up. Each
/// waiting request holds a slot in the queue only; nothing is sent.
///
/// ## Known FoundationNetworking faults (Linux, Swift 6.3.1)
///
/// On Linux, `URLSession` is FoundationNetworking over libcurl, and some faults are not
/// CoreNetKit's to fix. On a Linux server, prefer `AsyncHTTPClientTransport` (package trait
/// `AsyncHTTPClient`), which has none of them:
/// - A response that is only a status line (or a cut-off header block) followed by EOF, and a
///   chunked body with a trailer field, abort the whole process inside FoundationNetworking
///   ("Fatal error: Transfer completed, but there's no response.", NativeProtocol.swift:240,
///   swift-corelibs-foundation #5285). A hostile or broken server can trigger it; no delegate
///   callback runs first, so the transport cannot prevent it.
/// - A 401 with `WWW-Authenticate: Basic` never completes unless the delegate answers the
///   challenge (swift-corelibs-foundation #5456). This transport answers it and delivers the
///   401, so it ends in ``BaseServerError/Code-swift.struct/unauthorized``.
/// - Cancelling a task while its redirect callback is pending aborts the process ("Received
///   callback for HTTP redirection, but we're not waiting for it"). This transport serialises
///   cancellation with its redirect answers, so cancelling through CoreNetKit is safe.
/// - Client memory grows by roughly 150–200 bytes per request over the life of the process.
/// - It handles a few thousand requests per second on two cores, at about three times the CPU
///   per request of AsyncHTTPClient; above ~5 connections per host libcurl drops and reopens
///   connections under load, hence the limit of 4.
/// - Its own errors for a dropped connection, a body cut short, a non-HTTP status line and bad
///   chunking are normalised by this transport to the `URLError` codes Apple's URLSession and
///   `AsyncHTTPClientTransport` use, so the same fault gives the same ``BaseServerError`` code.
///   A status line libcurl rejects (`HELLO`, `HTTP/1.1 abc OK`, `HTTP/3.0 200`, `HTTP/2 200`)
///   reads "The server sent a response that is not valid HTTP.", never "The request's URL is not
///   valid.".
/// - libcurl resends a request without a body by itself when the kept-alive connection it reused
///   is found dead before any response byte arrived: the server may see more copies of a `GET`
///   than ``RetryPolicy/maximumAttempts`` allows (up to 8 copies with `maximumAttempts: 3`).
///   CoreNetKit cannot stop it.
/// - For a request with a body (`POST`) on such a connection, FoundationNetworking resends the
///   head without the body and the request waited out its whole timeout (8.0 s of an 8 s
///   timeout, measured), where AsyncHTTPClient reports the dropped connection at once. This
///   transport cancels that resend and ends the request in
///   ``BaseServerError/Code-swift.struct/connectionLost`` at once, as AsyncHTTPClient does.
public final class URLSessionTransport: Transport {
    /// The session requests go through.
    public let session: URLSession
    private let delegate: SessionDelegate
    private let limiter: HostLimiter?

    /// How many requests per host the transport hands to the session at once when none is
    /// given: 4 on Linux (libcurl keeps 4 stable connections and reopens them above ~5), `nil` on
    /// Apple platforms (the session's own limit applies).
    public static var defaultMaximumConnectionsPerHost: Int? {
        #if canImport(FoundationNetworking)
        return 4
        #else
        return nil
        #endif
    }

    /// The configuration CoreNetKit uses when none is given: no URL cache, cache policy
    /// `.reloadIgnoringLocalCacheData`, no cookies (see ``init(configuration:maximumConnectionsPerHost:)``),
    /// a 60 s request timeout and, on Linux, at most 4 connections per host.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        turnCookiesOff(configuration)
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 60
        #if canImport(FoundationNetworking)
        configuration.httpMaximumConnectionsPerHost = 4
        #endif
        return configuration
    }

    /// Creates a transport over a new session with `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: The session's configuration. Its cookie settings are replaced: the
    ///     session neither stores nor sends cookies (`httpCookieStorage = nil`,
    ///     `httpShouldSetCookies = false`, `httpCookieAcceptPolicy = .never`), so that cookies
    ///     behave the same on every transport; set ``NetworkConfiguration/cookieStorage`` to keep
    ///     them.
    ///   - maximumConnectionsPerHost: At most this many requests per host are in the session at
    ///     once (and the session's `httpMaximumConnectionsPerHost` is set to it); further requests
    ///     wait in the transport, outside their timeout. `nil` leaves queueing to the session,
    ///     whose timeout then includes the wait for a connection.
    public init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(),
        maximumConnectionsPerHost: Int? = URLSessionTransport.defaultMaximumConnectionsPerHost
    ) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        Self.turnCookiesOff(configuration)
        if let maximumConnectionsPerHost {
            precondition(maximumConnectionsPerHost > 0, "maximumConnectionsPerHost must be positive")
            configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        }
        self.limiter = maximumConnectionsPerHost.map(HostLimiter.init(limit:))
        let delegate = SessionDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "CoreNetKit.URLSessionTransport"
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    /// The session keeps no cookie jar of its own: cookies are the pipeline's, the same on every
    /// transport (``NetworkConfiguration/cookieStorage``).
    private static func turnCookiesOff(_ configuration: URLSessionConfiguration) {
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let limiter, let host = HostLimiter.key(for: request.url) else {
            return try await exchange(request)
        }
        try await limiter.acquire(host)
        defer { limiter.release(host) }
        return try await exchange(request)
    }

    /// Sends `request` through the session; its timeout starts here.
    private func exchange(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let task: URLSessionTask
        if let file = request.bodyFileURL {
            task = session.uploadTask(with: request.urlRequest, fromFile: file)
        } else {
            task = session.dataTask(with: request.urlRequest)
        }
        task.routeBodyRewind(to: delegate)
        let box = TaskBox(task: task, gate: CancelGate())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<TransportResponse, any Error>) in
                let state = TaskState(request: request, continuation: continuation, gate: box.gate)
                delegate.register(state, for: task.taskIdentifier)
                if Task.isCancelled {
                    box.gate.cancel(task)
                }
                task.resume()
            }
        } onCancel: {
            box.gate.cancel(box.task)
        }
    }
}

/// Carries a `URLSessionTask` into the cancellation handler.
private struct TaskBox: @unchecked Sendable {  // safe: `URLSessionTask.cancel()` is thread-safe
    let task: URLSessionTask
    let gate: CancelGate
}

/// Serialises cancelling a task with answering its redirect callback.
///
/// FoundationNetworking (Swift 6.3.1) aborts the process ("Received callback for HTTP
/// redirection, but we're not waiting for it") when `cancel()` reaches a task whose redirect
/// callback has not been answered yet, and the answer arrives after it. Under this lock a
/// cancelled task's redirect is never answered (its cancellation completes it instead), and an
/// answered redirect is always queued before the cancellation.
final class CancelGate: Sendable {
    private let cancelled = Locked(false)

    /// Cancels `task`, once.
    func cancel(_ task: URLSessionTask) {
        cancelled.withLock { cancelled in
            guard !cancelled else { return }
            cancelled = true
            task.cancel()
        }
    }

    /// Runs `answer` unless the task was cancelled.
    func answerRedirect(_ answer: () -> Void) {
        cancelled.withLock { cancelled in
            if !cancelled { answer() }
        }
    }
}

/// Lets at most `limit` requests per host into the session; the rest wait in FIFO order.
/// Cancelling a waiting Task removes it from the queue and throws `CancellationError`.
final class HostLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct Host {
        var active = 0
        var waiters: [Waiter] = []
    }
    private struct State {
        var hosts: [String: Host] = [:]
        var nextId: UInt64 = 0
    }
    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) { self.limit = limit }

    /// `scheme://host:port`, or `nil` for a URL without a host.
    static func key(for url: URL?) -> String? {
        guard let url, let host = url.host else { return nil }
        let port = RedirectPolicy.effectivePort(url).map { ":\($0)" } ?? ""
        return (url.scheme?.lowercased() ?? "") + "://" + host.lowercased() + port
    }

    func acquire(_ host: String) async throws {
        let id: UInt64? = state.withLock { state in
            if state.hosts[host, default: Host()].active < limit {
                state.hosts[host, default: Host()].active += 1
                return nil
            }
            state.nextId += 1
            return state.nextId
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Task.isCancelled is set before `onCancel` runs, so checking it under the lock
                // leaves no gap: either this sees it, or `onCancel` finds the waiter.
                let admitted: Bool? = state.withLock { state in
                    if Task.isCancelled { return nil }
                    if state.hosts[host, default: Host()].active < limit {  // freed meanwhile
                        state.hosts[host, default: Host()].active += 1
                        return true
                    }
                    state.hosts[host, default: Host()].waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                switch admitted {
                case true?: continuation.resume()
                case nil: continuation.resume(throwing: CancellationError())
                case false?: break
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let index = state.hosts[host]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.hosts[host]?.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Frees a slot: hands it to the first waiter, if any.
    func release(_ host: String) {
        let next: Waiter? = state.withLock { state in
            guard var entry = state.hosts[host] else { return nil }
            if entry.waiters.isEmpty {
                entry.active -= 1
                if entry.active == 0 {
                    state.hosts[host] = nil
                } else {
                    state.hosts[host] = entry
                }
                return nil
            }
            let waiter = entry.waiters.removeFirst()
            state.hosts[host] = entry
            return waiter
        }
        next?.continuation.resume()
    }
}
