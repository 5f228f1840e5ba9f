//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// A ``Transport`` on swift-server's AsyncHTTPClient: on Linux several times the throughput of
/// FoundationNetworking's `URLSession` at a third of its CPU cost per request.
///
/// Available with the package trait `AsyncHTTPClient`:
///
/// ```swift
/// .package(url: "https://github.com/corenetkit/CoreNetKit.git", from: "0.1.0", traits: ["AsyncHTTPClient"])
/// ```
///
/// It behaves like ``URLSessionTransport``: the request's timeout bounds the whole exchange,
/// cancelling the awaiting Task cancels the request, and redirects (up to 20) are followed by the
/// transport itself so that `Authorization`, `Proxy-Authorization` and `Cookie` never go to
/// another origin. A client you pass in should be configured with
/// `redirectConfiguration: .disallow` for that policy to apply; the transport's own client is.
public final class AsyncHTTPClientTransport: Transport {
    /// The client requests go through.
    public let client: HTTPClient
    private let ownsClient: Bool
    /// The TLS configuration of each host with a trust rule (see AsyncHTTPClientTransport+Trust.swift).
    let trustByHost: [String: TLSConfiguration]
    /// The most redirects followed for one request.
    public static let maximumRedirects = RedirectPolicy.maximumRedirects

    /// Whether the transport asks for gzip/deflate bodies and inflates them as the pipeline reads
    /// them (its own client, with AsyncHTTPClient's decompression off).
    let inflatesBodies: Bool

    /// The most body bytes (inflated) that wait for the pipeline to read them before the client
    /// stops reading the socket for that request; it reads on once the pipeline asks for more.
    public let bodyBufferLimit: Int

    /// The configuration the transport's own client uses: redirects left to the transport,
    /// connection failures reported at once rather than retried until the deadline, and
    /// AsyncHTTPClient's decompression off: the transport asks for gzip/deflate bodies itself and
    /// inflates them as the pipeline reads them, so that ``NetworkConfiguration/maximumResponseBodySize``
    /// bounds the inflated size and no compression ratio refuses a small body.
    public static func defaultConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Creates a transport over a client of its own, shut down when the transport is released.
    ///
    /// With the configuration's decompression `.disabled` (the default configuration's), the
    /// transport sends `Accept-Encoding: gzip, deflate` on requests that have none and inflates
    /// those responses itself, within the pipeline's budget; a request with an `Accept-Encoding`
    /// of its own gets the body as the server sent it.
    ///
    /// - Parameters:
    ///   - configuration: The client's configuration.
    ///   - bodyBufferLimit: The most body bytes (inflated) that wait unread per request before
    ///     the client stops reading the socket; 1 MiB by default.
    public convenience init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration(),
        bodyBufferLimit: Int = 1 << 20
    ) {
        self.init(configuration: configuration, trustByHost: [:], bodyBufferLimit: bodyBufferLimit)
    }

    init(configuration: HTTPClient.Configuration, trustByHost: [String: TLSConfiguration], bodyBufferLimit: Int) {
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.ownsClient = true
        self.trustByHost = trustByHost
        self.bodyBufferLimit = max(bodyBufferLimit, 1)
        if case .disabled = configuration.decompression { inflatesBodies = true } else { inflatesBodies = false }
    }

    /// Creates a transport over `client`, which the caller owns and shuts down; bodies are
    /// decompressed (or not) as the client's configuration says.
    ///
    /// - Parameters:
    ///   - client: The client requests go through.
    ///   - bodyBufferLimit: The most body bytes that wait unread per request before the client
    ///     stops reading the socket; 1 MiB by default.
    public init(client: HTTPClient, bodyBufferLimit: Int = 1 << 20) {
        self.client = client
        self.ownsClient = false
        self.trustByHost = [:]
        self.inflatesBodies = false
        self.bodyBufferLimit = max(bodyBufferLimit, 1)
    }

    deinit {
        if ownsClient { client.shutdown { _ in } }
    }

    /// Sends `request` and returns at the final head; the body is AsyncHTTPClient's own, which
    /// reads from the socket only as fast as the pipeline pulls it.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let deadline: NIODeadline =
            request.timeout.isFinite && request.timeout > 0
            ? .now() + .nanoseconds(Int64(request.timeout * 1_000_000_000)) : .distantFuture
        var current = request
        // Asked for by the transport, so inflated by it; a caller's own Accept-Encoding gets the
        // bytes as sent.
        let inflates = inflatesBodies && request.value(forHTTPHeaderField: "Accept-Encoding") == nil
        if inflates { current.setValue("gzip, deflate", forHTTPHeaderField: "Accept-Encoding") }
        for _ in 0...Self.maximumRedirects {
            let response = try await execute(current, original: request, deadline: deadline)
            let location = response.headers.first(name: "Location")
            guard
                let next = RedirectPolicy.request(after: current, status: Int(response.status.code), location: location)
            else {
                return Self.response(response, url: current.url, inflates: inflates)
            }
            current = next
        }
        throw URLError(.httpTooManyRedirects)
    }

    /// Sends `current` (the original request, or where a redirect pointed).
    private func execute(_ current: TransportRequest, original: TransportRequest, deadline: NIODeadline) async throws
        -> HTTPClientResponse
    {
        var request = HTTPClientRequest(url: current.url.absoluteString)
        request.method = NIOHTTP1.HTTPMethod(rawValue: current.method.rawValue)
        request.tlsConfiguration = trust(for: current.url)
        request.headers = Self.clientHeaders(current.headers)
        request.body = Self.body(current.body)
        do {
            return try await client.execute(request, deadline: deadline)
        } catch {
            throw Self.trustFailure(error, url: current.url) ?? Self.map(error)
        }
    }

    /// The TLS configuration of `url`'s host, when it has a trust rule.
    func trust(for url: URL) -> TLSConfiguration? {
        guard !trustByHost.isEmpty, let host = url.host?.lowercased() else { return nil }
        return trustByHost[host]
    }

    /// `headers` as AsyncHTTPClient takes them.
    static func clientHeaders(_ headers: HTTPHeaders) -> NIOHTTP1.HTTPHeaders {
        var converted = NIOHTTP1.HTTPHeaders()
        converted.reserveCapacity(headers.count)
        for (name, value) in headers { converted.add(name: name, value: value) }
        return converted
    }

    /// The bytes of `body` when they go in one write (few enough for one chunk, or nobody watches
    /// their upload); `nil` for a body pulled in chunks, and for none.
    static func wholeBytes(_ body: RequestBody) -> Data? {
        guard let data = body.data, body.observer == nil || data.count <= RequestBodyChunks.chunkSize else {
            return nil
        }
        return data
    }

    /// The body to send: whole when it is small bytes nobody watches, else pulled in chunks.
    private static func body(_ body: RequestBody) -> HTTPClientRequest.Body? {
        if body.isEmpty { return nil }
        if let data = wholeBytes(body) {
            body.reportSent(Int64(data.count))
            return .bytes(ByteBuffer(bytes: data))
        }
        return .stream(BufferChunks(body: body), length: body.length.map { .known($0) } ?? .unknown)
    }

    /// The head of `response`, with its body as CoreNetKit chunks (inflated when `inflates` and
    /// the body is gzip or deflate).
    private static func response(_ response: HTTPClientResponse, url: URL, inflates: Bool) -> TransportResponse {
        let body =
            inflates && isCompressed(response.headers)
            ? ResponseBody(
                InflatedChunks(
                    body: response.body,
                    head: HTTPResponseHead(
                        version: response.version, status: response.status, headers: response.headers)))
            : ResponseBody(DataChunks(body: response.body))
        return TransportResponse(
            statusCode: Int(response.status.code), headers: headers(response.headers), body: body, url: url,
            httpVersion: version(response.version))
    }

    /// AsyncHTTPClient's response headers as CoreNetKit's, in their order.
    static func headers(_ headers: NIOHTTP1.HTTPHeaders) -> HTTPHeaders {
        var pairs: [(name: String, value: String)] = []
        pairs.reserveCapacity(headers.count)
        for header in headers { pairs.append((name: header.name, value: header.value)) }
        return HTTPHeaders(pairs)
    }

    /// Whether a body with `headers` is gzip or deflate, which the transport inflates.
    static func isCompressed(_ headers: NIOHTTP1.HTTPHeaders) -> Bool {
        let coding = headers.first(name: "Content-Encoding")?.trimmingHTTPWhitespace.lowercased()
        return coding == "gzip" || coding == "deflate"
    }

    /// `version` as an HTTP Archive writes it: `HTTP/1.1`, `HTTP/2.0`.
    static func version(_ version: HTTPVersion) -> String {
        switch version {
        case .http1_1: "HTTP/1.1"
        case .http2: "HTTP/2.0"
        default: "HTTP/\(version.major).\(version.minor)"
        }
    }

    /// AsyncHTTPClient's and NIO's errors as the `URLError`s the pipeline maps once: the codes
    /// ``URLSessionTransport`` reports for the same faults.
    static func map(_ error: any Error) -> any Error {
        if error is CancellationError || error is URLError { return error }
        let code: URLError.Code
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled, .requestStreamCancelled: return CancellationError()
            case .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout: code = .timedOut
            case .connectTimeout, .tlsHandshakeTimeout, .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
                code = .cannotConnectToHost
            case .remoteConnectionClosed: code = .networkConnectionLost
            case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath: code = .badURL
            case .redirectLimitReached, .redirectCycleDetected: code = .httpTooManyRedirects
            default: code = .unknown
            }
        } else if let error = error as? HTTPParserError {
            // Closed mid-body, versus a response that is not valid HTTP.
            code = error == .invalidEOFState ? .networkConnectionLost : .cannotParseResponse
        } else if let error = error as? NIOConnectionError {
            // Every address failed to resolve, versus every connection attempt failed.
            let unresolved = error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil)
            code = unresolved ? .cannotFindHost : .cannotConnectToHost
        } else if error is SocketAddressError.UnknownHost {
            code = .cannotFindHost
        } else if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH: code = .cannotConnectToHost
            case ECONNRESET, EPIPE, ECONNABORTED: code = .networkConnectionLost
            default: code = .unknown
            }
        } else if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: code = .cannotConnectToHost
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed: code = .networkConnectionLost
            default: code = .unknown
            }
        } else if error is NIOTooManyBytesError || error as? NIOHTTPDecompression.DecompressionError == .limit {
            code = .dataLengthExceedsMaximum
        } else {
            return error
        }
        return URLError(code, userInfo: [NSUnderlyingErrorKey: error])
    }
}
#endif
