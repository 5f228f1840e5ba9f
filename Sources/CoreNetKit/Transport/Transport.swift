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

/// Sends HTTP requests: the seam between CoreNetKit and an HTTP client.
///
/// A transport only moves bytes. Everything that watches an exchange — the request's deadline
/// and idle timeout, the size budget, backpressure, cancellation, progress, writing a download
/// to its file, streaming to a reader, collecting for decoding — happens in the pipeline, once,
/// for every transport, on the one path ``start(_:events:)`` opens.
///
/// There are two ways to write one, and a transport implements either:
/// - **`send(_:)`**, the simple one: return the response head with its body to pull
///   (``TransportResponse``). The pipeline runs it in a Task of its own, pulls the body as fast
///   as the reader takes it (pausing past ``bodyBufferLimit`` unread bytes) and cancels that Task
///   when the request is cancelled or its deadline passes.
/// - **`start(_:events:)`**, the event source: begin the exchange, report what happens to
///   ``TransportEvents`` (the head, each chunk of the body, the end or a failure) from any
///   thread, and return a ``TransportExchange`` the pipeline tells to pause, resume or cancel.
///   ``URLSessionTransport`` works this way, straight from its delegate's callbacks.
///
/// Each has a default made from the other, so a transport that implements neither does not
/// work. Implementations are `Sendable` and follow redirects themselves (never sending
/// `Authorization`, `Proxy-Authorization` or `Cookie` to another origin); failures are reported
/// as they come and the pipeline maps them to ``BaseServerError`` once. ``StubTransport``
/// answers from closures for unit tests. The article <doc:Transports> shows complete custom
/// transports of both kinds.
public protocol Transport: Sendable {
    /// Begins the exchange of `request` and returns at once; what happens is reported to
    /// `events`, in order: the head, the chunks of the body, then the end or a failure.
    ///
    /// The pipeline keeps the deadline: when it passes, or the request is cancelled, or the
    /// reader stops early, the returned exchange is told to ``TransportExchange/cancel()``.
    ///
    /// The default runs ``send(_:)`` in a Task and reports what it returns.
    func start(_ request: TransportRequest, events: TransportEvents) -> any TransportExchange

    /// Sends `request` and returns as soon as the final response head (after redirects and any
    /// `1xx`) has arrived; the body follows in the response's ``TransportResponse/body``.
    ///
    /// Errors of the body (a connection lost mid-body) are thrown by the body's iterator; a
    /// cancelled Task cancels the request on the wire and throws.
    ///
    /// The default starts the exchange with ``start(_:events:)`` (no deadline) and returns its head.
    ///
    /// - Throws: the transport's own error (for example `URLError`) or `CancellationError`.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// The most unread body bytes the pipeline keeps before it tells the exchange to pause (it
    /// tells it to go on once half were read). A transport that cannot pause fails the body with
    /// ``BaseServerError/Code-swift.struct/responseTooLarge`` once 64 times this many wait.
    /// 1 MiB by default.
    var bodyBufferLimit: Int { get }
}

extension Transport {
    public func start(_ request: TransportRequest, events: TransportEvents) -> any TransportExchange {
        SendingTask(request, events: events) { try await send($0) }
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let limits = ExchangeStateMachine.Limits(
            timeout: .infinity, idle: nil, bufferLimit: bodyBufferLimit, holdsHeadForBody: request.bodyIsCollected)
        return try await ExchangeDriver.send(request, through: self, limits: limits, clock: SystemClock())
    }

    public var bodyBufferLimit: Int { 1 << 20 }
}

/// A running exchange, as the pipeline controls it: what ``Transport/start(_:events:)`` returns.
///
/// The pipeline calls these from any thread, after the exchange was started, and each may come
/// more than once or after the exchange ended: an implementation makes them cheap and idempotent.
/// ``pause()`` and ``resume()`` are called in the order the pipeline decided them, under its
/// lock: they must return at once and report no event from inside. ``cancel()`` may report its
/// failure from inside.
public protocol TransportExchange: Sendable {
    /// The reader is behind: report no more chunks for now (a few already on their way may
    /// still arrive). A transport that cannot pause does nothing.
    func pause()
    /// The reader wants more: go on reading after ``pause()``.
    func resume()
    /// Stop the exchange and close its connection; then report a failure (any error: the
    /// pipeline already knows why it cancelled) or nothing.
    func cancel()
}

/// Where a transport reports what happens to one exchange: from any thread, one event at a
/// time, in order — ``head(statusCode:headers:url:httpVersion:)``, then ``chunk(_:)`` for each
/// piece of the body, then ``end()`` or ``fail(_:)`` (which may also come instead of the head).
///
/// Events after the end, a failure or a cancellation are ignored; a chunk before the head
/// fails the exchange. A transport that keeps requests in a queue of its own before sending
/// them reports ``queued()`` from `start` and ``sending()`` when one leaves the queue, so the
/// deadline does not count the wait.
public struct TransportEvents: Sendable {
    let driver: ExchangeDriver

    /// The request waits in the transport's own queue (report it from `start`, before returning).
    public func queued() {
        driver.transportEvent { machine, _ in machine.queued() }
    }

    /// The request left the transport's queue and is being sent: its deadline starts.
    public func sending() {
        driver.timedEvent { machine, now in machine.sending(now: now) }
    }

    /// The final response head arrived (after redirects and any `1xx`); `httpVersion` is the
    /// protocol it came in (``TransportResponse/httpVersion``), `nil` when the transport cannot tell.
    public func head(statusCode: Int, headers: HTTPHeaders, url: URL?, httpVersion: String? = nil) {
        let head = ExchangeHead(statusCode: statusCode, headers: headers, url: url, httpVersion: httpVersion)
        driver.timedEvent { machine, now in machine.receivedHead(head, now: now) }
    }

    /// A piece of the body arrived (after the transport's decompression).
    public func chunk(_ data: Data) {
        driver.transportEvent { machine, now in machine.receivedChunk(data, now: now) }
    }

    /// The whole body arrived.
    public func end() {
        driver.transportEvent { machine, now in machine.ended(now: now) }
    }

    /// The exchange failed with `error` (before the head, or in the body).
    public func fail(_ error: any Error) {
        driver.transportEvent { machine, now in machine.failed(error, now: now) }
    }
}

/// What a ``Transport`` sends: method, URL, header fields and body as plain values.
///
/// It stays a CoreNetKit value all the way to the transport: building a Foundation `URLRequest`
/// costs real time on Linux, so only a transport that needs one (``URLSessionTransport``) asks
/// for ``urlRequest``.
public struct TransportRequest: Sendable {
    /// The HTTP method.
    public var method: HTTPMethod
    /// The URL, query included.
    public var url: URL
    /// The header fields to send, in order; a name may repeat.
    public var headers: HTTPHeaders
    /// The body: none, bytes, a file or a stream of chunks.
    public var body: RequestBody
    /// The request's deadline in seconds, from the first byte sent to the last byte of the body
    /// read; `.infinity` for none. The pipeline keeps it; a transport may use it as a backstop
    /// of its own (URLSession's idle timeout, AsyncHTTPClient's deadline to the head).
    public var timeout: TimeInterval
    /// Whether the sender reads the whole body before it uses any of it (the pipeline sets it
    /// for every request whose body is not streamed to service code). The pipeline then hands
    /// the head over with the first bytes of the body (or its end), which spares a small
    /// response a wake-up of the waiting Task, whatever the transport. `false` by default: the
    /// head is handed over as soon as it arrives.
    public var bodyIsCollected = false
    /// Creates a transport request.
    public init(
        method: HTTPMethod, url: URL, headers: HTTPHeaders = [:], body: RequestBody = .none,
        timeout: TimeInterval = 60
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// Creates a transport request from a `URLRequest` (its method, URL, headers, body and
    /// timeout).
    public init(urlRequest: URLRequest) {
        self.init(
            method: HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET"),
            url: urlRequest.url ?? URL(fileURLWithPath: "/"),
            headers: HTTPHeaders(urlRequest.allHTTPHeaderFields ?? [:]),
            body: urlRequest.httpBody.map { .data($0) } ?? .none, timeout: urlRequest.timeoutInterval)
    }

    /// The request as a Foundation `URLRequest`, built on each read (for URLSession-based
    /// transports): repeated fields are joined (`Cookie` with `"; "`, others with `", "`), a
    /// body in memory is its `httpBody`; a file or stream body is not part of it.
    ///
    /// On Linux its `timeoutInterval` is `timeout` rounded up to a whole second, plus one: there
    /// URLSession truncates the interval to whole seconds, so 0.5 s would end the request at once
    /// (and 1.5 s after one second). The library's own deadline keeps the exact `timeout`; the
    /// session's timer is only a backstop behind it.
    public var urlRequest: URLRequest {
        var request = URLRequest(
            url: url, cachePolicy: .useProtocolCachePolicy, timeoutInterval: Self.sessionTimeout(timeout))
        // A request is a GET unless told otherwise; FoundationNetworking normalizes a method it
        // is given (about 5 µs).
        if method != .get { request.httpMethod = method.rawValue }
        // One assignment costs half of setting the fields one by one (FoundationNetworking).
        if !headers.isEmpty { request.allHTTPHeaderFields = headers.dictionary }
        request.httpBody = body.data
        return request
    }

    /// The `timeoutInterval` a `URLRequest` gets for `timeout`: a week for none, and on Linux a
    /// whole number of seconds past it (see ``urlRequest``).
    static func sessionTimeout(_ timeout: TimeInterval) -> TimeInterval {
        guard timeout.isFinite, timeout > 0 else { return 7 * 24 * 3600 }
        #if canImport(FoundationNetworking)
        return timeout.rounded(.up) + 1
        #else
        return timeout
        #endif
    }

    /// The value of the header `name`, compared case-insensitively (repeats joined).
    public func value(forHTTPHeaderField name: String) -> String? {
        headers[name]
    }

    /// Sets (or, with `nil`, removes) the header `name`, replacing any spelling of it.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        headers[name] = value
    }
}

/// What a ``Transport`` returns: the final response head, and its body to pull.
public struct TransportResponse: Sendable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The response header fields, in order, repeats kept.
    public var headers: HTTPHeaders
    /// The body, pulled by the pipeline once.
    public var body: ResponseBody
    /// The final URL after redirects.
    public var url: URL?
    /// The protocol the response came in, as an HTTP Archive writes it (`HTTP/1.1`, `HTTP/2.0`);
    /// `nil` when the transport cannot tell (``URLSessionTransport``: Foundation does not say).
    public var httpVersion: String?

    /// Creates a response whose body is pulled from `body`.
    public init(
        statusCode: Int, headers: HTTPHeaders = [:], body: ResponseBody, url: URL? = nil, httpVersion: String? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
        self.httpVersion = httpVersion
    }

    /// Creates a response whose body is the bytes `body`.
    public init(
        statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil, httpVersion: String? = nil
    ) {
        self.init(
            statusCode: statusCode, headers: headers, body: ResponseBody(body), url: url, httpVersion: httpVersion)
    }

    /// The length the body has after the transport's decoding: `Content-Length` when there is
    /// no `Content-Encoding`, else `nil`.
    public var expectedLength: Int64? {
        if let coding = headers["Content-Encoding"]?.trimmingHTTPWhitespace.lowercased(),
            !coding.isEmpty, coding != "identity"
        {
            return nil
        }
        guard let text = headers["Content-Length"], let length = Int64(text.trimmingHTTPWhitespace),
            length >= 0
        else { return nil }
        return length
    }
}
