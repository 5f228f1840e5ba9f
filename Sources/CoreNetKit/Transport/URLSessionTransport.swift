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
/// The session has no `URLCache` (CoreNetKit caches through ``CacheAdapter``), no cookies of its own (see
/// ``NetworkConfiguration/cookieStorage``) and, on Linux, at most 4 connections per host, which keeps libcurl from
/// dropping and reopening connections under load. Cancelling the awaiting Task cancels the `URLSessionTask`. A
/// redirect to another origin drops the `Authorization`, `Proxy-Authorization` and `Cookie` headers.
///
/// ## Connections per host and the timeout
///
/// With `maximumConnectionsPerHost` set (4 on Linux by default), the other requests to a host wait in the
/// transport, in order, sending nothing. The timeout starts when a request enters the session: it bounds the
/// exchange, never the (unbounded) wait; cancel to give up. The library's deadline keeps the timeout to the
/// millisecond; the session's timer is a backstop, on Linux rounded up to a whole second plus one (see
/// ``TransportRequest/urlRequest``).
///
/// ## The body, backpressure and the buffer
///
/// ``send(_:)`` returns at the response head; the body arrives through a buffer fed by the delegate. For a
/// collected body (``TransportRequest/bodyIsCollected``) the head waits for the first body bytes, and a body whose
/// `Content-Length` bytes all arrived (without `Content-Encoding` or `Transfer-Encoding`) ends without waiting for
/// the task to complete, so a small response reaches the waiting Task in one wake-up.
///
/// On Apple platforms, past ``bodyBufferLimit`` unread bytes the task is suspended until half were read. On Linux
/// it never suspends: FoundationNetworking's `resume()` restarts the transfer from the first byte, and its delegate
/// callbacks queue without bound. A reader more than 64 × ``bodyBufferLimit`` bytes (64 MiB by default) behind
/// ends the body in ``BaseServerError/Code-swift.struct/responseTooLarge`` instead; the pipeline's own readers keep
/// up, but read long, slowly consumed streams with `AsyncHTTPClientTransport`. A gzip bomb also ends in
/// `responseTooLarge`, but can take about 1.2 GB of memory first (chunks libcurl queued before the cancel).
///
/// Foundation folds repeated response fields (joined with `", "`, order across names lost); `Set-Cookie` is split
/// back into its cookies.
///
/// ## Known FoundationNetworking faults (Linux, Swift 6.3.1)
///
/// Not CoreNetKit's to fix; on a Linux server prefer `AsyncHTTPClientTransport` (package trait `AsyncHTTPClient`),
/// which has none of them:
/// - A response that is only a status line (or a cut-off header block) then EOF, or a chunked body with a trailer,
///   aborts the process ("Fatal error: Transfer completed, but there's no response.", swift-corelibs-foundation
///   #5285). A hostile server can trigger it, and no delegate callback runs first to prevent it.
/// - A 401 with `WWW-Authenticate: Basic` never completes unless the delegate answers the challenge (#5456); this
///   transport answers it, so it ends in ``BaseServerError/Code-swift.struct/unauthorized``.
/// - Cancelling a task while its redirect callback is pending aborts the process; this transport serialises the
///   two, so cancelling is safe.
/// - Client memory grows by roughly 150–200 bytes per request over the life of the process.
/// - A few thousand requests per second on two cores, at about three times AsyncHTTPClient's CPU per request.
/// - Its errors for a dropped connection, a short body, a non-HTTP status line and bad chunking are normalised to
///   the other transports' `URLError` codes, so a fault gives the same ``BaseServerError`` code.
/// - libcurl resends a body-less request by itself when a reused kept-alive connection is found dead before any
///   response byte: the server may see more copies of a `GET` than ``RetryPolicy/maximumAttempts`` allows (up to 8
///   with 3), which CoreNetKit cannot stop. On such a connection a `POST` is resent without its body and would wait
///   out its timeout; this transport cancels the resend and ends it in
///   ``BaseServerError/Code-swift.struct/connectionLost`` at once.
public final class URLSessionTransport: Transport {
    /// The session requests go through.
    public let session: URLSession
    private let delegate: SessionDelegate
    /// Kept here as `OperationQueue.underlyingQueue` does not retain it.
    private let delegateDispatchQueue = DispatchQueue(label: "CoreNetKit.URLSessionTransport.delegate")
    private let limiter: HostLimiter?
    /// The most unread body bytes before the task is suspended (resumed when half were read); chunks on their way can
    /// overshoot it by about 1 MiB. On Linux a reader 64 times this behind fails with `responseTooLarge`.
    public let bodyBufferLimit: Int

    /// The default requests per host in the session at once: 4 on Linux (libcurl reopens connections above ~5), `nil`
    /// on Apple platforms (the session's own limit applies).
    public static var defaultMaximumConnectionsPerHost: Int? {
        #if canImport(FoundationNetworking)
        return 4
        #else
        return nil
        #endif
    }

    /// The default configuration: no URL cache, `.reloadIgnoringLocalCacheData`, no cookies, a 60 s request timeout
    /// and, on Linux, at most 4 connections per host.
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
    ///   - configuration: The session's configuration. Its cookie settings are replaced so the session neither stores
    ///     nor sends cookies, as on every transport; set ``NetworkConfiguration/cookieStorage`` to keep them.
    ///   - maximumConnectionsPerHost: At most this many requests per host in the session at once (also set as its
    ///     `httpMaximumConnectionsPerHost`); the rest wait in the transport, outside their timeout. `nil` leaves
    ///     queueing to the session, whose timeout then includes the wait.
    ///   - bodyBufferLimit: The most body bytes buffered per request before the task is suspended; 1 MiB by default.
    public convenience init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(),
        maximumConnectionsPerHost: Int? = URLSessionTransport.defaultMaximumConnectionsPerHost,
        bodyBufferLimit: Int = 1 << 20
    ) {
        self.init(
            configuration: configuration, maximumConnectionsPerHost: maximumConnectionsPerHost,
            bodyBufferLimit: bodyBufferLimit, trust: nil)
    }

    init(
        configuration: URLSessionConfiguration, maximumConnectionsPerHost: Int?, bodyBufferLimit: Int,
        trust: ServerTrustPolicy?
    ) {
        precondition(bodyBufferLimit > 0, "bodyBufferLimit must be positive")
        self.bodyBufferLimit = bodyBufferLimit
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        Self.turnCookiesOff(configuration)
        if let maximumConnectionsPerHost {
            precondition(maximumConnectionsPerHost > 0, "maximumConnectionsPerHost must be positive")
            configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        }
        self.limiter = maximumConnectionsPerHost.map(HostLimiter.init(limit:))
        let delegate = SessionDelegate(serverTrust: trust)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "CoreNetKit.URLSessionTransport"
        // Without an underlying queue FoundationNetworking schedules each delegate callback as a costlier operation.
        queue.underlyingQueue = delegateDispatchQueue
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    /// Cookies are the pipeline's, the same on every transport.
    private static func turnCookiesOff(_ configuration: URLSessionConfiguration) {
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// For the tests.
    var requestsWaitingForAConnection: Int { limiter?.waitingCount ?? 0 }

    /// Begins `request`'s exchange at once, or when a host connection slot frees (reported as
    /// ``TransportEvents/queued()`` then ``TransportEvents/sending()``, so the deadline skips the wait). The slot is
    /// held until the task completes.
    public func start(_ request: TransportRequest, events: TransportEvents) -> any TransportExchange {
        let exchange = URLSessionExchange(request: request, events: events)
        guard let limiter, let host = HostLimiter.key(for: request.url) else {
            begin(exchange, release: nil)
            return exchange
        }
        events.queued()
        let ticket = limiter.enqueue(host) { [self] atOnce in
            events.sending()
            let release: @Sendable () -> Void = { limiter.release(host) }
            guard !atOnce else { return begin(exchange, release: release) }
            // Admitted on the delegate queue by another task's completion: start elsewhere so the queue moves on.
            DispatchQueue.global().async { self.begin(exchange, release: release) }
        }
        if let ticket {
            exchange.waitsInQueue { limiter.leave(host, ticket: ticket) }
        }
        return exchange
    }

    /// Makes and starts `exchange`'s task; `release` runs once, when the task completes (or can't run).
    private func begin(_ exchange: URLSessionExchange, release: (@Sendable () -> Void)?) {
        let request = exchange.request
        if request.body.isStream {
            Task {
                do {
                    let file = try await Self.spool(request.body)
                    let task = session.uploadTask(with: request.urlRequest, fromFile: file)
                    run(task, for: exchange) {
                        try? FileManager.default.removeItem(at: file)
                        release?()
                    }
                } catch {
                    release?()
                    exchange.events.fail(error)
                }
            }
            return
        }
        let task =
            request.body.fileURL.map { session.uploadTask(with: request.urlRequest, fromFile: $0) }
            ?? session.dataTask(with: request.urlRequest)
        run(task, for: exchange, completed: release ?? {})
    }

    private func run(
        _ task: URLSessionTask, for exchange: URLSessionExchange, completed: @escaping @Sendable () -> Void
    ) {
        #if canImport(FoundationNetworking)
        task.delegate = delegate  // FoundationNetworking asks the task's delegate, not the session's, to rewind a body
        #endif
        exchange.completed = completed
        delegate.register(exchange, for: task.taskIdentifier)
        guard exchange.attach(task) else {
            // Cancelled before its task was made: it never runs.
            delegate.unregister(task.taskIdentifier)
            completed()
            exchange.events.fail(CancellationError())
            return
        }
        task.resume()
    }

    /// URLSession reads bodies only from memory or a file: a stream goes to an owner-only scratch file, which the
    /// caller removes when the request has ended.
    private static func spool(_ body: RequestBody) async throws -> URL {
        var quiet = body
        quiet.observer = nil  // the upload's progress is what the session reports sending
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("corenetkit-body-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw BaseServerError(code: .fileAccess, message: "could not create the scratch file \(url.path)")
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            for try await chunk in quiet.chunks() {
                try Task.checkCancellation()
                try handle.write(contentsOf: chunk)
            }
            return url
        } catch {
            try? FileManager.default.removeItem(at: url)
            if error is BaseServerError || error is CancellationError { throw error }
            throw BaseServerError(code: .fileAccess, message: "could not write \(url.path)", underlyingError: error)
        }
    }
}

/// Serialises cancelling a task with answering its redirect: FoundationNetworking (Swift 6.3.1) aborts the process
/// when a redirect answer arrives after `cancel()`.
final class CancelGate: Sendable {
    private let cancelled = Locked(false)

    func cancel(_ task: URLSessionTask) {
        cancelled.withLock { cancelled in
            guard !cancelled else { return }
            cancelled = true
            task.cancel()
        }
    }

    func answerRedirect(_ answer: () -> Void) {
        cancelled.withLock { cancelled in
            if !cancelled { answer() }
        }
    }
}

/// Lets at most `limit` requests per host into the session; the rest wait in FIFO order.
final class HostLimiter: Sendable {
    private typealias Waiter = (ticket: UInt64, admit: @Sendable (_ atOnce: Bool) -> Void)
    private struct Host {
        var active = 0
        var waiters: [Waiter] = []
    }
    private struct State {
        var hosts: [String: Host] = [:]
        var nextTicket: UInt64 = 0
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

    /// Calls `admit` when a slot of `host` is free: at once with `true` (then returns `nil`), or later, in order, with
    /// `false` from the freeing ``release(_:)`` (then returns the ticket for ``leave(_:ticket:)``).
    func enqueue(_ host: String, admit: @escaping @Sendable (_ atOnce: Bool) -> Void) -> UInt64? {
        let ticket: UInt64? = state.withLock { state in
            if state.hosts[host, default: Host()].active < limit {
                state.hosts[host, default: Host()].active += 1
                return nil
            }
            state.nextTicket += 1
            state.hosts[host, default: Host()].waiters.append((state.nextTicket, admit))
            return state.nextTicket
        }
        if ticket == nil { admit(true) }
        return ticket
    }

    /// Takes the waiter `ticket` out of `host`'s queue; `false` if it was admitted already.
    func leave(_ host: String, ticket: UInt64) -> Bool {
        state.withLock { state in
            guard let index = state.hosts[host]?.waiters.firstIndex(where: { $0.ticket == ticket }) else {
                return false
            }
            state.hosts[host]?.waiters.remove(at: index)
            return true
        }
    }

    var waitingCount: Int { state.withLock { $0.hosts.values.reduce(0) { $0 + $1.waiters.count } } }

    /// Frees a slot: hands it to the first waiter, if any.
    func release(_ host: String) {
        let next: Waiter? = state.withLock { state in
            guard var entry = state.hosts[host] else { return nil }
            if entry.waiters.isEmpty {
                entry.active -= 1
                state.hosts[host] = entry.active == 0 ? nil : entry
                return nil
            }
            let waiter = entry.waiters.removeFirst()
            state.hosts[host] = entry
            return waiter
        }
        next?.admit(false)
    }
}
