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

/// Sends one HTTP request and returns its response: the seam between CoreNetKit and an HTTP
/// client.
///
/// Implementations are `Sendable`, honour Task cancellation (a cancelled Task cancels the
/// request on the wire and throws), and report failures as they come; the pipeline maps them to
/// ``BaseServerError`` once. ``URLSessionTransport`` is the default; ``StubTransport`` answers
/// from closures for unit tests.
public protocol Transport: Sendable {
    /// Sends `request` and returns the complete response.
    ///
    /// - Throws: the transport's own error (for example `URLError`) or `CancellationError`.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// What a ``Transport`` sends: method, URL, headers and body as plain values, plus where the body
/// comes from or the response goes when they are files, and progress callbacks.
///
/// It stays a CoreNetKit value all the way to the transport: building a Foundation `URLRequest`
/// costs real time on Linux, so only a transport that needs one (``URLSessionTransport``) asks
/// for ``urlRequest``.
public struct TransportRequest: Sendable {
    /// The HTTP method.
    public var method: HTTPMethod
    /// The URL, query included.
    public var url: URL
    /// The header fields to send; each name appears once (names compare case-insensitively).
    public var headers: [String: String]
    /// The body in memory; `nil` for none, or when ``bodyFileURL`` is set.
    public var body: Data?
    /// How long the whole exchange may take, in seconds.
    public var timeout: TimeInterval
    /// A file whose contents are the body, streamed rather than loaded into memory.
    public var bodyFileURL: URL?
    /// When set, a 2xx response's body is written to this file instead of memory (any other
    /// status keeps its body in memory). A transport that cannot do this may return the body in
    /// memory; the pipeline then writes it to the file.
    public var downloadDestination: URL?
    /// Called with (bytes sent, total bytes expected) as the body goes out; any thread.
    public var uploadProgress: (@Sendable (Int64, Int64) -> Void)?
    /// Called with (bytes received, total bytes expected or -1) as the body arrives; any thread.
    public var downloadProgress: (@Sendable (Int64, Int64) -> Void)?
    /// When `true`, a download to ``downloadDestination`` that fails or is cancelled leaves the
    /// bytes that arrived in the file (the pipeline resumes from them); when `false` (the
    /// default) the transport removes the file.
    public var keepsPartialDownload: Bool
    /// Called once with the final response's status and headers when they arrive, before any
    /// of its body (after redirects were followed); any thread. A transport that cannot report
    /// the head early may call it just before it returns the response.
    public var responseHeadReceived: (@Sendable (_ statusCode: Int, _ headers: HTTPHeaders) -> Void)?
    /// When set, a 2xx response's body is handed to it chunk by chunk as it arrives instead of
    /// being collected; the returned ``TransportResponse`` then has an empty body.
    ///
    /// Called in order, after ``responseHeadReceived``, from one thread at a time (the
    /// transport's delegate queue or its Task), once per non-empty chunk, never after the
    /// transport returned or threw. Any other status keeps its body in memory. It is not used
    /// when ``downloadDestination`` is set. A transport that cannot stream may return the body in
    /// memory instead. The callback must not block: chunks the reader has not taken yet wait in
    /// the callback's own buffer (neither transport applies backpressure).
    public var receivesBodyChunk: (@Sendable (Data) -> Void)?

    /// Creates a transport request.
    public init(
        method: HTTPMethod, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 60,
        bodyFileURL: URL? = nil, downloadDestination: URL? = nil,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
        downloadProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
        keepsPartialDownload: Bool = false,
        responseHeadReceived: (@Sendable (_ statusCode: Int, _ headers: HTTPHeaders) -> Void)? = nil,
        receivesBodyChunk: (@Sendable (Data) -> Void)? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.bodyFileURL = bodyFileURL
        self.downloadDestination = downloadDestination
        self.uploadProgress = uploadProgress
        self.downloadProgress = downloadProgress
        self.keepsPartialDownload = keepsPartialDownload
        self.responseHeadReceived = responseHeadReceived
        self.receivesBodyChunk = receivesBodyChunk
    }

    /// Creates a transport request from a `URLRequest` (its method, URL, headers, body and
    /// timeout).
    public init(
        urlRequest: URLRequest, bodyFileURL: URL? = nil, downloadDestination: URL? = nil,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
        downloadProgress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) {
        self.init(
            method: HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET"),
            url: urlRequest.url ?? URL(fileURLWithPath: "/"), headers: urlRequest.allHTTPHeaderFields ?? [:],
            body: urlRequest.httpBody, timeout: urlRequest.timeoutInterval, bodyFileURL: bodyFileURL,
            downloadDestination: downloadDestination, uploadProgress: uploadProgress, downloadProgress: downloadProgress
        )
    }

    /// The request as a Foundation `URLRequest`, built on each read (for URLSession-based
    /// transports); setting it replaces method, URL, headers, body and timeout.
    public var urlRequest: URLRequest {
        get {
            var request = URLRequest(url: url)
            request.httpMethod = method.rawValue
            request.timeoutInterval = timeout
            // One assignment costs half of setting the fields one by one (FoundationNetworking).
            if !headers.isEmpty { request.allHTTPHeaderFields = headers }
            request.httpBody = body
            return request
        }
        set {
            method = HTTPMethod(rawValue: newValue.httpMethod ?? "GET")
            url = newValue.url ?? url
            headers = newValue.allHTTPHeaderFields ?? [:]
            body = newValue.httpBody
            timeout = newValue.timeoutInterval
        }
    }

    /// The value of the header `name`, compared case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? {
        if let exact = headers[name] { return exact }
        return headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Sets (or, with `nil`, removes) the header `name`, replacing any spelling of it.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        for key in headers.keys where key.caseInsensitiveCompare(name) == .orderedSame { headers[key] = nil }
        if let value { headers[name] = value }
    }
}

/// What a ``Transport`` returns: status, headers and body of a complete response.
public struct TransportResponse: Sendable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The body; empty when it was written to the request's download destination or handed to
    /// its ``TransportRequest/receivesBodyChunk``.
    public var body: Data
    /// The final URL after redirects.
    public var url: URL?

    /// Creates a response.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
    }
}
