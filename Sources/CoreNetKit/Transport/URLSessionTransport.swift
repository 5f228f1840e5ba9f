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
/// The timeout is kept by the library's deadline, to the millisecond. The session's own timer is
/// only a backstop behind it: on Linux, where FoundationNetworking counts `timeoutInterval` in
/// whole seconds (0.5 s would end the request at once), a request's `URLRequest` gets its timeout
/// rounded up to a whole second, plus one.
///
/// ## The body, backpressure and the buffer
///
/// ``send(_:)`` returns at the response head; the body reaches the pipeline through a buffer fed
/// by the session's delegate. For a request whose body is collected
/// (``TransportRequest/bodyIsCollected``, which the pipeline sets unless the body is streamed to
/// service code) the head waits for the first bytes of the body; and a body whose
/// `Content-Length` bytes have all arrived (without a `Content-Encoding` or `Transfer-Encoding`)
/// ends at once, without waiting for the task to complete. A small response so reaches the
/// waiting Task in one wake-up.
///
/// On Apple platforms, when more than ``bodyBufferLimit`` bytes wait unread, the transport
/// suspends the task (the session stops reading the socket) and resumes it once half of them
/// were read, so a slow reader slows the transfer and memory stays near the limit.
///
/// On Linux there is no way to pause: FoundationNetworking's `suspend()` takes the transfer off
/// libcurl and `resume()` starts it over from the first byte (measured: a 50 MB download arrived
/// as 80 MB of repeated data), and its delegate callbacks are queued without a bound. The
/// transport therefore never suspends there; instead a reader that falls more than 64 ×
/// ``bodyBufferLimit`` bytes (64 MiB by default) behind the network ends the body in
/// ``BaseServerError/Code-swift.struct/responseTooLarge``. The pipeline's own readers (decoding,
/// downloads to a file) keep up, so this only concerns a slow consumer of a long stream: read
/// such streams with `AsyncHTTPClientTransport`, which applies backpressure to the socket.
///
/// For the same reason a compressed body that inflates faster than the delegate queue drains
/// (a gzip bomb: 6.8 MB on the wire, 1 GiB inflated) still ends in `responseTooLarge` at the
/// configuration's budget, but takes about 1.2 GB of memory on the way, most of it chunks that
/// libcurl already inflated and queued for the delegate before the transport could cancel.
///
/// Response header fields arrive folded by Foundation (repeats joined with `", "`, order across
/// names lost); the transport splits `Set-Cookie` back into its cookies.
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
    /// Where the session's delegate queue runs its operations: a serial Dispatch queue, kept
    /// here because `OperationQueue.underlyingQueue` does not retain it.
    private let delegateDispatchQueue = DispatchQueue(label: "CoreNetKit.URLSessionTransport.delegate")
    private let limiter: HostLimiter?
    /// The most body bytes that wait for the pipeline to read them before the transport suspends
    /// the task (libcurl then stops reading the socket); it resumes the task when half of them
    /// were read. A few chunks that were already on their way may arrive while it suspends, so
    /// the buffer can exceed this by about 1 MiB. On Linux, where a task cannot be suspended, a
    /// reader that falls 64 times this behind fails with `responseTooLarge` instead.
    public let bodyBufferLimit: Int

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
    /// `.reloadIgnoringLocalCacheData`, no cookies (see ``init(configuration:maximumConnectionsPerHost:bodyBufferLimit:)``),
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
    ///   - bodyBufferLimit: The most body bytes buffered per request before the task is
    ///     suspended; 1 MiB by default.
    public convenience init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(),
        maximumConnectionsPerHost: Int? = URLSessionTransport.defaultMaximumConnectionsPerHost,
        bodyBufferLimit: Int = 1 << 20
    ) {
        self.init(
            configuration: configuration, maximumConnectionsPerHost: maximumConnectionsPerHost,
            bodyBufferLimit: bodyBufferLimit, trust: nil)
    }

    /// Creates a transport whose delegate applies `trust` (see URLSessionTransport+Trust.swift).
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
        // Without an underlying queue, each delegate callback (a request's head, each piece of
        // its body, its end) is an operation FoundationNetworking schedules at a higher cost,
        // which took 10 to 15 % of the throughput at 8 and 64 requests in flight.
        queue.underlyingQueue = delegateDispatchQueue
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

    /// How many requests wait for a connection now (for the tests).
    var requestsWaitingForAConnection: Int { limiter?.waitingCount ?? 0 }

    /// Begins `request`'s exchange: at once, or once one of the host's connection slots is free
    /// (reported as ``TransportEvents/queued()`` then ``TransportEvents/sending()``, so the
    /// deadline does not count the wait). The session's delegate reports the head, each piece of
    /// the body and the end; the slot is held until the task has completed.
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
            // Let through when another request's task completed, on the session's delegate queue:
            // the task is made and started elsewhere, so that queue goes on with its callbacks.
            DispatchQueue.global().async { self.begin(exchange, release: release) }
        }
        if let ticket {
            exchange.waitsInQueue { limiter.leave(host, ticket: ticket) }
        }
        return exchange
    }

    /// Makes `exchange`'s task and starts it; `release` runs once, when the task has completed (or
    /// at once when it could not be made or the exchange was already cancelled).
    private func begin(_ exchange: URLSessionExchange, release: (@Sendable () -> Void)?) {
        let request = exchange.request
        if request.body.isStream {
            // URLSession cannot pull an asynchronous sequence: it goes through a scratch file.
            Task {
                do {
                    let file = try await RequestBodySpool.write(request.body)
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
        let task: URLSessionTask
        if let file = request.body.fileURL {
            task = session.uploadTask(with: request.urlRequest, fromFile: file)
        } else {
            task = session.dataTask(with: request.urlRequest)
        }
        run(task, for: exchange, completed: release ?? {})
    }

    private func run(
        _ task: URLSessionTask, for exchange: URLSessionExchange, completed: @escaping @Sendable () -> Void
    ) {
        task.routeBodyRewind(to: delegate)
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
final class HostLimiter: Sendable {
    private struct Waiter {
        let ticket: UInt64
        let admit: @Sendable (_ atOnce: Bool) -> Void
    }
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

    /// Calls `admit` when a slot of `host` is free: at once (with `true`, before returning, and
    /// then returns `nil`), or later, in order (with `false`, from the ``release(_:)`` that freed
    /// the slot; then it returns the ticket ``leave(_:ticket:)`` takes).
    func enqueue(_ host: String, admit: @escaping @Sendable (_ atOnce: Bool) -> Void) -> UInt64? {
        let ticket: UInt64? = state.withLock { state in
            if state.hosts[host, default: Host()].active < limit {
                state.hosts[host, default: Host()].active += 1
                return nil
            }
            state.nextTicket += 1
            state.hosts[host, default: Host()].waiters.append(Waiter(ticket: state.nextTicket, admit: admit))
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

    /// How many requests wait now, over all hosts.
    var waitingCount: Int { state.withLock { $0.hosts.values.reduce(0) { $0 + $1.waiters.count } } }

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
        next?.admit(false)
    }
}
