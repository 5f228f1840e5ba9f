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
import Tracing

/// A ``Transport`` on swift-server's AsyncHTTPClient: on Linux several times FoundationNetworking's throughput at a
/// third of its CPU per request.
///
/// Available with the package trait `AsyncHTTPClient`:
///
/// ```swift
/// .package(url: "https://github.com/corenetkit/CoreNetKit.git", from: "0.1.0", traits: ["AsyncHTTPClient"])
/// ```
///
/// Like ``URLSessionTransport``, the timeout bounds the whole exchange, cancelling the awaiting Task cancels the
/// request, and the transport follows redirects (up to `maximumRedirects`, 20) itself, so `Authorization`,
/// `Proxy-Authorization` and `Cookie` never go to another origin. A client you pass in needs
/// `redirectConfiguration: .disallow` for that to apply; the transport's own client has it.
public final class AsyncHTTPClientTransport: Transport {
    /// The client requests go through.
    public let client: HTTPClient
    private let ownsClient: Bool
    let trustByHost: [String: TLSConfiguration]
    /// The most redirects followed for one request.
    public static let maximumRedirects = RedirectPolicy.maximumRedirects

    /// Its own client with decompression off: the transport asks for gzip/deflate and inflates bodies itself.
    let inflatesBodies: Bool

    /// The most unread (inflated) body bytes before the client stops reading the socket, until the pipeline asks.
    public let bodyBufferLimit: Int

    /// The event loops whose exchanges ended last, where the exchanges to come start.
    let loops: LoopAffinity

    /// The own client's configuration: redirects left to the transport, connection failures reported at once (not
    /// retried until the deadline), and decompression off, so the transport inflates bodies itself and
    /// ``NetworkConfiguration/maximumResponseBodySize`` bounds the inflated size (no ratio limit refuses small ones).
    /// Waiting for a pooled connection and connecting are bounded by the request's own timeout, as on
    /// ``URLSessionTransport``: AsyncHTTPClient's connect timeout (10 s by default, which also fails a request that waits
    /// that long for a free connection) is set to a day. Its tracer is the one bootstrapped with
    /// swift-distributed-tracing, or none (not the no-op one).
    public static func defaultConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .hours(24)
        return withoutNoOpTracer(configuration)
    }

    /// `configuration` without a tracer when its tracer is the no-op one (none was bootstrapped when it was made):
    /// AsyncHTTPClient still starts a span per request with it, its method printed through reflection and its
    /// attributes set, about 13 µs of client CPU a request for nothing. A bootstrapped tracer is kept.
    static func withoutNoOpTracer(_ configuration: HTTPClient.Configuration) -> HTTPClient.Configuration {
        guard configuration.tracing.tracer is NoOpTracer else { return configuration }
        var configuration = configuration
        configuration.tracing.tracer = nil
        return configuration
    }

    /// Creates a transport over a client of its own with `configuration`, shut down when the transport is released.
    ///
    /// With decompression `.disabled` (as by default), the transport sends `Accept-Encoding: gzip, deflate` on
    /// requests without one and inflates those responses itself, within the pipeline's budget; a request with its
    /// own `Accept-Encoding` gets the body as sent. `bodyBufferLimit` is the most unread (inflated) body bytes per
    /// request before the client stops reading the socket; 1 MiB by default. A no-op tracer in `configuration` is
    /// dropped (it would still start a span per request).
    public convenience init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration(),
        bodyBufferLimit: Int = 1 << 20
    ) {
        self.init(configuration: configuration, trustByHost: [:], bodyBufferLimit: bodyBufferLimit)
    }

    init(configuration: HTTPClient.Configuration, trustByHost: [String: TLSConfiguration], bodyBufferLimit: Int) {
        self.client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.withoutNoOpTracer(configuration))
        self.ownsClient = true
        self.loops = LoopAffinity(client.eventLoopGroup)
        self.trustByHost = trustByHost
        self.bodyBufferLimit = max(bodyBufferLimit, 1)
        if case .disabled = configuration.decompression { inflatesBodies = true } else { inflatesBodies = false }
    }

    /// Creates a transport over `client`, which the caller owns and shuts down; bodies are decompressed as its
    /// configuration says. `bodyBufferLimit` is as in ``init(configuration:bodyBufferLimit:)``. A client with the
    /// no-op tracer (`HTTPClient.shared` when none was bootstrapped) still starts a span per request, about 13 µs.
    public init(client: HTTPClient, bodyBufferLimit: Int = 1 << 20) {
        self.client = client
        self.ownsClient = false
        self.loops = LoopAffinity(client.eventLoopGroup)
        self.trustByHost = [:]
        self.inflatesBodies = false
        self.bodyBufferLimit = max(bodyBufferLimit, 1)
    }

    deinit {
        if ownsClient { client.shutdown { _ in } }
    }

    /// Sends `request` and returns at the final head; the body reads the socket only as fast as it is pulled.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await send(request, events: nil)
    }

    /// ``send(_:)``, handing each redirect to `events` for its cookies.
    func send(_ request: TransportRequest, events: TransportEvents?) async throws -> TransportResponse {
        let deadline: NIODeadline =
            request.timeout.isFinite && request.timeout > 0
            ? .now() + .nanoseconds(Int64(request.timeout * 1_000_000_000)) : .distantFuture
        var current = request
        // Inflate only what the transport asked for; a caller's own Accept-Encoding gets the bytes as sent.
        let inflates = inflatesBodies && request.value(forHTTPHeaderField: "Accept-Encoding") == nil
        if inflates { current.setValue("gzip, deflate", forHTTPHeaderField: "Accept-Encoding") }
        for _ in 0...Self.maximumRedirects {
            let response = try await execute(current, deadline: deadline)
            let location = response.headers.first(name: "Location")
            guard
                var next = RedirectPolicy.request(after: current, status: Int(response.status.code), location: location)
            else {
                return Self.response(response, url: current.url, inflates: inflates)
            }
            events?.redirecting(&next, from: current.url, headers: Self.headers(response.headers))
            current = next
        }
        throw URLError(.httpTooManyRedirects)
    }

    private func execute(_ current: TransportRequest, deadline: NIODeadline) async throws -> HTTPClientResponse {
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

    func trust(for url: URL) -> TLSConfiguration? {
        guard !trustByHost.isEmpty, let host = url.host?.lowercased() else { return nil }
        return trustByHost[host]
    }

    static func clientHeaders(_ headers: HTTPHeaders) -> NIOHTTP1.HTTPHeaders {
        var converted = NIOHTTP1.HTTPHeaders()
        converted.reserveCapacity(headers.count)
        for (name, value) in headers { converted.add(name: name, value: value) }
        return converted
    }

    /// The bytes of `body` when sent in one write: one chunk's worth, or with no upload observer.
    static func wholeBytes(_ body: RequestBody) -> Data? {
        body.data.flatMap { body.observer == nil || $0.count <= RequestBodyChunks.chunkSize ? $0 : nil }
    }

    private static func body(_ body: RequestBody) -> HTTPClientRequest.Body? {
        if body.isEmpty { return nil }
        if let data = wholeBytes(body) {
            body.reportSent(Int64(data.count))
            return .bytes(ByteBuffer(bytes: data))
        }
        return .stream(BufferChunks(body: body), length: body.length.map { .known($0) } ?? .unknown)
    }

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

    static func headers(_ headers: NIOHTTP1.HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.map { (name: $0.name, value: $0.value) })
    }

    static func isCompressed(_ headers: NIOHTTP1.HTTPHeaders) -> Bool {
        let coding = headers.first(name: "Content-Encoding")?.trimmingHTTPWhitespace.lowercased()
        return coding == "gzip" || coding == "deflate"
    }

    /// As an HTTP Archive writes it.
    static func version(_ version: HTTPVersion) -> String {
        switch version {
        case .http1_1: "HTTP/1.1"
        case .http2: "HTTP/2.0"
        default: "HTTP/\(version.major).\(version.minor)"
        }
    }

    /// AsyncHTTPClient's and NIO's errors as the `URLError` codes ``URLSessionTransport`` reports for the same faults.
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
