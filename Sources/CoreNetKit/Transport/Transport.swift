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

/// What a ``Transport`` sends: the `URLRequest`, plus where the body comes from or the response
/// goes when they are files, and progress callbacks.
public struct TransportRequest: Sendable {
    /// The request; its `httpBody` is the body unless ``bodyFileURL`` is set.
    public var urlRequest: URLRequest
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

    /// Creates a transport request.
    public init(
        urlRequest: URLRequest, bodyFileURL: URL? = nil, downloadDestination: URL? = nil,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
        downloadProgress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) {
        self.urlRequest = urlRequest
        self.bodyFileURL = bodyFileURL
        self.downloadDestination = downloadDestination
        self.uploadProgress = uploadProgress
        self.downloadProgress = downloadProgress
    }
}

/// What a ``Transport`` returns: status, headers and body of a complete response.
public struct TransportResponse: Sendable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The body; empty when it was written to the request's download destination.
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
