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

/// One stored response: what a ``CacheAdapter`` saves and loads.
///
/// It keeps the raw response, not the model, so a cached answer goes through the request's
/// ``BaseServerRequest/handle(serverResponse:)`` exactly like a fresh one.
public struct CachedResponse: Sendable, Equatable {
    /// The HTTP status code, always 2xx.
    public var statusCode: Int
    /// The response headers; a `304 Not Modified` replaces the fields it carries.
    public var headers: HTTPHeaders
    /// The raw body.
    public var body: Data
    /// The URL the response came from, after redirects.
    public var url: URL?
    /// When the entry was stored or last revalidated.
    public var storedAt: Date
    /// The SHA-256 of the sent request headers the response's `Vary` names; `nil` without `Vary`.
    public var variant: String?

    /// Creates an entry.
    ///
    /// An adapter that reads an entry back passes the date it stored with it (the one ``CacheAdapter/save(_:for:)``
    /// was given); without one, pass `.distantPast`, so the entry counts as stale and is revalidated, never as fresh.
    public init(
        statusCode: Int, headers: HTTPHeaders, body: Data, url: URL?, storedAt: Date,
        variant: String? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
        self.storedAt = storedAt
        self.variant = variant
    }

    /// The header names `headers`' `Vary` lists, lower-cased and sorted; `["*"]` for `Vary: *`.
    static func varyNames(_ headers: HTTPHeaders) -> [String] {
        let names = headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingHTTPWhitespace.lowercased() }.filter { !$0.isEmpty }
        return Array(Set(names)).sorted()
    }

    /// Like the `[String: String]` variant, for `request`'s headers.
    static func variant(of request: URLRequest, names: [String]) -> String? {
        variant(of: request.allHTTPHeaderFields ?? [:], names: names)
    }

    /// The digest of the values in `headers` (names compared case-insensitively) of the headers in `names`; `nil` when
    /// `names` is empty.
    static func variant(of headers: [String: String], names: [String]) -> String? {
        guard !names.isEmpty else { return nil }
        var text = ""
        for name in names {
            let value = headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
            text += name + ":" + (value.map { "=" + $0 } ?? "-") + "\n"
        }
        return SHA256.hex(text)
    }

    func serverResponse(for request: TransportRequest, fromCache: Bool, duration: Duration = .zero) -> ServerResponse {
        ServerResponse(
            statusCode: statusCode, headers: headers, data: body, transportRequest: request, url: url,
            duration: duration, isFromCache: fromCache)
    }

    /// This entry after a `304` with `headers`: each field it carries replaces the stored ones, except body fields.
    func revalidated(by headers: HTTPHeaders, at date: Date) -> CachedResponse {
        let fresh = headers.fields.filter { !Self.bodyFields.contains($0.name.lowercased()) }
        let replaced = Set(fresh.map { $0.name.lowercased() })
        var updated = self
        updated.headers = HTTPHeaders(self.headers.fields.filter { !replaced.contains($0.name.lowercased()) } + fresh)
        updated.storedAt = date
        return updated
    }

    /// The entry to store for `response` to a `method` request with `requestHeaders`; `nil` unless it is a 2xx to `GET`
    /// or `HEAD` without `no-store` (on either side) or `Vary: *`.
    init?(storing response: ServerResponse, method: HTTPMethod, requestHeaders: [String: String], at date: Date) {
        let requestCacheControl = requestHeaders.first {
            $0.key.caseInsensitiveCompare("Cache-Control") == .orderedSame
        }
        guard method.isCacheable, response.isSuccessStatus,
            !Self.forbidsStoring(response.headers.values(for: "Cache-Control")),
            !Self.forbidsStoring(requestCacheControl.map { [$0.value] } ?? [])
        else { return nil }
        let names = Self.varyNames(response.headers)
        guard !names.contains("*") else { return nil }
        self.init(
            statusCode: response.statusCode, headers: response.headers, body: response.data, url: response.url,
            storedAt: date, variant: Self.variant(of: requestHeaders, names: names))
    }

    private static func forbidsStoring(_ cacheControl: [String]) -> Bool {
        cacheControl.contains { value in
            value.split(separator: ",").contains { $0.trimmingHTTPWhitespace.lowercased() == "no-store" }
        }
    }

    private static let bodyFields: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "content-range",
    ]
}
