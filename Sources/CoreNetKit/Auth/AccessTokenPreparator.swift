//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Puts an access token into a request's header: `Authorization: Bearer <token>` by default.
///
/// The ``AccessSafeRequestManager`` applies one on every send, so a replay after a refresh carries the new token; its
/// stage (``AccessTokenInterceptor``) comes after ``PreparatorInterceptor`` and ``CacheInterceptor``, so its header
/// replaces one the request or a preparator set. Use it alone for a token that never needs refreshing:
///
/// ```swift
/// configuration.preparators.append(AccessTokenPreparator(header: "X-Api-Key", scheme: nil) { apiKey })
/// ```
///
/// A custom header is redacted in logs only when the logger knows it as a secret (names ending in `token` or `key`).
public struct AccessTokenPreparator: RequestPreparator {
    /// The header that carries the token, `Authorization` by default.
    public var header: String
    /// The word before the token, `Bearer` by default; `nil` sends the token alone.
    public var scheme: String?
    private let token: @Sendable () async throws -> String?

    /// Creates a preparator that adds the token `token` returns (none when it returns `nil`).
    public init(
        header: String = "Authorization", scheme: String? = "Bearer",
        token: @escaping @Sendable () async throws -> String?
    ) {
        self.header = header
        self.scheme = scheme
        self.token = token
    }

    public func prepare(_ request: ServerRequest) async throws -> ServerRequest {
        try authorize(request, with: try await token())
    }

    /// `request` with `token` in ``header``, replacing any value there (whatever its case); with `nil`, without it.
    ///
    /// Throws ``BaseServerError`` `invalidRequest` (never showing the token) when it is empty or holds characters a
    /// header cannot carry.
    public func authorize(_ request: ServerRequest, with token: String?) throws -> ServerRequest {
        var request = request
        for name in request.headers.keys where name.caseInsensitiveCompare(header) == .orderedSame {
            request.headers[name] = nil
        }
        guard let token else { return request }
        guard Self.isValidToken(token) else {
            throw BaseServerError.invalidRequest(
                "the access token is empty or holds characters an HTTP header cannot carry")
        }
        request.headers[header] = scheme.map { "\($0) \(token)" } ?? token
        return request
    }

    /// Whether `token` is non-empty visible ASCII with no spaces at its ends (RFC 7230 field-value), safe in a header.
    static func isValidToken(_ token: String) -> Bool {
        let bytes = token.utf8
        return !bytes.isEmpty && bytes.first != 0x20 && bytes.last != 0x20
            && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
