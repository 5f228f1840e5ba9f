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

/// Sends one HTTP request and returns its response head, with the body to pull: the seam
/// between CoreNetKit and an HTTP client.
///
/// A transport only moves bytes and reports the head. Everything that watches a body — the
/// request's deadline and size budget, progress, writing a download to its file, keeping
/// partial bytes for a resume, streaming to a reader, collecting for decoding — happens in the
/// pipeline, once, for every transport, while it pulls ``TransportResponse/body``.
///
/// Implementations are `Sendable`, follow redirects themselves (never sending `Authorization`,
/// `Proxy-Authorization` or `Cookie` to another origin), honour Task cancellation (a cancelled
/// Task cancels the request on the wire and throws), and report failures as they come; the
/// pipeline maps them to ``BaseServerError`` once. ``URLSessionTransport`` is the default;
/// ``StubTransport`` answers from closures for unit tests. The article <doc:Transports> shows a
/// complete custom transport.
public protocol Transport: Sendable {
    /// Sends `request` and returns as soon as the final response head (after redirects and any
    /// `1xx`) has arrived; the body follows in the response's ``TransportResponse/body``.
    ///
    /// The pipeline keeps the request's deadline over the whole exchange: it cancels the calling
    /// Task, or stops pulling the body, when time is up. Errors of the body (a connection lost
    /// mid-body) are thrown by the body's iterator.
    ///
    /// - Throws: the transport's own error (for example `URLError`) or `CancellationError`.
    func send(_ request: TransportRequest) async throws -> TransportResponse
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
    /// for every request whose body is not streamed to service code). A transport may then hold
    /// the head back until the first bytes of the body arrive and hand both over at once:
    /// ``URLSessionTransport`` does, which spares a small response a wake-up of the waiting Task.
    /// `false` by default: the head is handed over as soon as it arrives.
    public var bodyIsCollected = false
    /// Set by the pipeline for a transport that queues requests before sending them
    /// (``URLSessionTransport`` with a per-host limit): the transport calls it when the request
    /// leaves its queue, and the deadline starts then.
    var beingSent: (@Sendable () -> Void)?
    /// Set by the pipeline when the exchange runs in the caller's Task (a transport that
    /// ``TransportTraits`` says can be cancelled without its Task): the transport gives it the
    /// action that ends the exchange, which runs when the request's deadline passes.
    var deadline: (any ExchangeActivity)?

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
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        request.timeoutInterval = Self.sessionTimeout(timeout)
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

    /// Creates a response whose body is pulled from `body`.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: ResponseBody, url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// Creates a response whose body is the bytes `body`.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.init(statusCode: statusCode, headers: headers, body: ResponseBody(body), url: url)
    }

    /// The length the body has after the transport's decoding: `Content-Length` when there is
    /// no `Content-Encoding`, else `nil`.
    public var expectedLength: Int64? {
        if let coding = headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces).lowercased(),
            !coding.isEmpty, coding != "identity"
        {
            return nil
        }
        guard let text = headers["Content-Length"], let length = Int64(text.trimmingCharacters(in: .whitespaces)),
            length >= 0
        else { return nil }
        return length
    }
}

/// What the pipeline needs to know of a transport, found once when a configuration is given
/// it rather than by a cast on every request.
struct TransportTraits: Sendable {
    /// Requests may wait in the transport before they are sent (``URLSessionTransport`` with a
    /// per-host limit): the deadline starts when one is sent.
    let queuesRequests: Bool
    /// The exchange can run in the caller's Task: the transport hands the deadline an action
    /// that cancels it (``URLSessionTransport``) or answers without waiting (a canned
    /// ``StubTransport``). Any other transport is cancelled through a Task of its own, with a
    /// grace for one that ignores it.
    let runsInCallersTask: Bool

    init(_ transport: any Transport) {
        if let urlSession = transport as? URLSessionTransport {
            queuesRequests = urlSession.queuesRequests
            runsInCallersTask = true
        } else if let stub = transport as? StubTransport {
            queuesRequests = false
            runsInCallersTask = stub.answersAtOnce
        } else {
            queuesRequests = false
            runsInCallersTask = false
        }
    }
}
