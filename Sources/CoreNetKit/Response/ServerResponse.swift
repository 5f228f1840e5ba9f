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

/// One HTTP response as the pipeline sees it: status, headers, raw body and where it came from.
///
/// The default ``BaseServerRequest`` mapping decodes the model straight from ``data``; ``json()``
/// parses the body as ``JSON`` for a mapping that wants it.
public struct ServerResponse: Sendable {
    /// The HTTP status code.
    public let statusCode: Int
    /// The response headers (names compare case-insensitively).
    public let headers: HTTPHeaders
    /// The raw body; empty for `HEAD`, `204` and `304`.
    public let data: Data
    /// The request that was sent, as the transport got it.
    public let transportRequest: TransportRequest
    /// The request that was sent, as a Foundation `URLRequest` (built on each read).
    public var request: URLRequest { transportRequest.urlRequest }
    /// The final URL after redirects.
    public let url: URL?
    /// Time from sending the request to the complete response.
    public let duration: Duration
    /// Whether this response was read from the cache rather than the network.
    public let isFromCache: Bool
    /// The file the body was streamed to, for a request with a
    /// ``ServerRequest/downloadDestination`` and a successful status; ``data`` is then empty.
    public let downloadedFileURL: URL?
    /// The decoder of the configuration the pipeline ran with, so the default mapping does not
    /// read the (lock-protected) configuration a second time.
    var decoder: JSONDecoder?

    /// Creates a response.
    public init(
        statusCode: Int, headers: HTTPHeaders, data: Data, request: URLRequest,
        url: URL? = nil, duration: Duration = .zero, isFromCache: Bool = false, downloadedFileURL: URL? = nil
    ) {
        self.init(
            statusCode: statusCode, headers: headers, data: data,
            transportRequest: TransportRequest(urlRequest: request),
            url: url, duration: duration, isFromCache: isFromCache, downloadedFileURL: downloadedFileURL)
    }

    /// Creates a response to `transportRequest`.
    public init(
        statusCode: Int, headers: HTTPHeaders, data: Data, transportRequest: TransportRequest,
        url: URL? = nil, duration: Duration = .zero, isFromCache: Bool = false, downloadedFileURL: URL? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.data = data
        // Read before the request moves into place: read after, it would be copied for it.
        self.url = url ?? transportRequest.url
        self.transportRequest = transportRequest
        self.duration = duration
        self.isFromCache = isFromCache
        self.downloadedFileURL = downloadedFileURL
    }

    /// Creates a response to `request` that no transport produced: what an ``Interceptor``
    /// that answers by itself (a mock, a canned reply) returns.
    ///
    /// ```swift
    /// return ServerResponse(statusCode: 200, data: Data(#"{"id": 1}"#.utf8), for: request)
    /// ```
    public init(statusCode: Int, headers: HTTPHeaders = [:], data: Data = Data(), for request: ServerRequest) {
        let url = (try? RequestEncoder.url(of: request, encoder: JSONEncoder())) ?? request.baseUrl
        self.init(
            statusCode: statusCode, headers: headers, data: data,
            transportRequest: TransportRequest(method: request.method, url: url, headers: HTTPHeaders(request.headers)))
    }

    /// The body parsed as JSON.
    ///
    /// Each call parses the body again (a response keeps no lock and no cache for it, so that the
    /// many responses nobody reads as JSON cost nothing for it): keep the result to read it twice.
    ///
    /// - Throws: ``BaseServerError`` with code ``BaseServerError/Code-swift.struct/cantMapping``
    ///   when the body is not JSON.
    public func json() throws -> JSON {
        do {
            return try JSON(data: data)
        } catch {
            throw BaseServerError.cantMapping(
                keyPath: "<root>", reason: "the body is not valid JSON", underlying: error)
        }
    }

    /// Whether the status is in `200..<300`.
    public var isSuccessStatus: Bool { (200..<300).contains(statusCode) }

    /// The body parsed as JSON if it looks like a JSON object or array, else `nil`.
    var jsonIfObject: JSON? {
        guard let first = data.first(where: { !$0.isWhitespaceByte }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        else {
            return nil
        }
        return try? json()
    }
}

extension UInt8 {
    var isWhitespaceByte: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}
