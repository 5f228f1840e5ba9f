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
/// A transport only moves bytes. Deadline and idle timeout, size budget, backpressure, cancellation, progress,
/// download files, streaming and collecting all happen once in the pipeline, on the path ``start(_:events:)`` opens.
///
/// Implement one of the two requirements (each defaults to the other, so implementing neither does not work):
/// - **`send(_:)`**: return the head with its body to pull (``TransportResponse``). The pipeline runs it in its own
///   Task, pulls the body as the reader takes it (pausing past ``bodyBufferLimit`` unread bytes) and cancels the
///   Task on cancellation or deadline.
/// - **`start(_:events:)`**: begin the exchange, report to ``TransportEvents`` from any thread, and return a
///   ``TransportExchange`` the pipeline pauses, resumes or cancels (as ``URLSessionTransport`` does).
///
/// Implementations follow redirects themselves, never sending `Authorization`, `Proxy-Authorization` or `Cookie`
/// to another origin; failures are reported as they come and the pipeline maps them to ``BaseServerError`` once.
/// ``StubTransport`` answers from closures for unit tests; <doc:Transports> shows complete custom transports.
public protocol Transport: Sendable {
    /// Begins the exchange of `request` and returns at once, reporting to `events` in order: the head, the body's
    /// chunks, then the end or a failure. On deadline, cancellation or an early-stopping reader, the pipeline calls
    /// ``TransportExchange/cancel()``. The default runs ``send(_:)`` in a Task and reports what it returns.
    func start(_ request: TransportRequest, events: TransportEvents) -> any TransportExchange

    /// Sends `request` and returns at the final response head (after redirects and any `1xx`); the body follows in
    /// ``TransportResponse/body``, whose iterator throws body errors. A cancelled Task cancels the request and throws.
    /// The default runs ``start(_:events:)`` (no deadline) and returns its head.
    ///
    /// - Throws: the transport's own error (for example `URLError`) or `CancellationError`.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// The most unread body bytes before the pipeline pauses the exchange (resumed once half were read); 1 MiB by
    /// default. A transport that cannot pause fails with ``BaseServerError/Code-swift.struct/responseTooLarge`` at 64×.
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
/// Called from any thread, possibly repeatedly or after the end, so make them cheap and idempotent. ``pause()`` and
/// ``resume()`` are called in order under the pipeline's lock: return at once and report no event from inside.
/// ``cancel()`` may report its failure from inside.
public protocol TransportExchange: Sendable {
    /// The reader is behind: report no more chunks for now (a few in flight may arrive); no-op if it cannot pause.
    func pause()
    /// The reader wants more: go on reading after ``pause()``.
    func resume()
    /// Stop the exchange and close its connection; then report a failure (any error will do) or nothing.
    func cancel()
}

/// Where a transport reports one exchange, from any thread, one event at a time, in order:
/// ``head(statusCode:headers:url:httpVersion:)``, ``chunk(_:)`` per body piece, then ``end()`` or ``fail(_:)`` (which
/// may also replace the head).
///
/// Events after the end, a failure or a cancellation are ignored; a chunk before the head fails the exchange. A
/// transport with its own queue reports ``queued()`` from `start` and ``sending()`` when the request leaves it, so the
/// deadline skips the wait.
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

    /// The final response head arrived (after redirects and `1xx`); `httpVersion` as in
    /// ``TransportResponse/httpVersion``, `nil` if unknown.
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

    /// Call once per redirect you follow, before sending `next`: the `Set-Cookie` fields of the redirecting response
    /// (`headers`, from `url`) go into ``NetworkConfiguration/cookieStorage``, and `next` gets the storage's `Cookie`
    /// header for its URL (after the request's own while the redirects stay on its origin). Without a cookie storage
    /// `next` is left as it is. Runs on the calling thread.
    public func redirecting(_ next: inout TransportRequest, from url: URL, headers: HTTPHeaders) {
        guard let cookie = driver.redirectCookie(to: next.url, from: url, headers: headers) else { return }
        next.setValue(cookie, forHTTPHeaderField: "Cookie")
    }
}

/// What a ``Transport`` sends: method, URL, header fields and body as plain values (building a `URLRequest` is
/// costly on Linux, so only a transport that needs one asks for ``urlRequest``).
public struct TransportRequest: Sendable {
    /// The HTTP method.
    public var method: HTTPMethod
    /// The URL, query included.
    public var url: URL
    /// The header fields to send, in order; a name may repeat.
    public var headers: HTTPHeaders
    /// The body: none, bytes, a file or a stream of chunks.
    public var body: RequestBody
    /// The deadline in seconds from the first byte sent to the body's last byte read; `.infinity` for none. The
    /// pipeline keeps it; a transport may use it as its own backstop.
    public var timeout: TimeInterval
    /// Whether the whole body is read before any is used (set by the pipeline unless the body is streamed): then the
    /// head is handed over with the first body bytes (or the end), sparing a small response a wake-up. `false` by
    /// default: the head is handed over as soon as it arrives.
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

    /// Creates a transport request from a `URLRequest`'s method, URL, headers, in-memory body and timeout.
    public init(urlRequest: URLRequest) {
        self.init(
            method: HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET"),
            url: urlRequest.url ?? URL(fileURLWithPath: "/"),
            headers: HTTPHeaders(urlRequest.allHTTPHeaderFields ?? [:]),
            body: urlRequest.httpBody.map { .data($0) } ?? .none, timeout: urlRequest.timeoutInterval)
    }

    /// The request as a `URLRequest`, built on each read: repeated fields joined (`Cookie` with `"; "`, others with
    /// `", "`), an in-memory body as `httpBody`; a file or stream body is left out.
    ///
    /// On Linux `timeoutInterval` is `timeout` rounded up to a whole second, plus one, as URLSession truncates it
    /// (0.5 s would end at once); the library's deadline keeps the exact `timeout`.
    public var urlRequest: URLRequest {
        var request = URLRequest(
            url: url, cachePolicy: .useProtocolCachePolicy, timeoutInterval: Self.sessionTimeout(timeout))
        // GET is the default; setting a method makes FoundationNetworking normalise it.
        if method != .get { request.httpMethod = method.rawValue }
        // One assignment is cheaper than setting fields one by one on FoundationNetworking.
        if !headers.isEmpty { request.allHTTPHeaderFields = headers.dictionary }
        request.httpBody = body.data
        return request
    }

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
    /// The protocol, as HAR writes it (`HTTP/1.1`, `HTTP/2.0`); `nil` when unknown (``URLSessionTransport``).
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

    /// The body length after the transport's decoding: `Content-Length` without `Content-Encoding`, else `nil`.
    public var expectedLength: Int64? {
        let coding = headers["Content-Encoding"]?.trimmingHTTPWhitespace.lowercased() ?? ""
        guard coding.isEmpty || coding == "identity", let text = headers["Content-Length"],
            let length = Int64(text.trimmingHTTPWhitespace), length >= 0
        else { return nil }
        return length
    }
}
