//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import NIOConcurrencyHelpers

/// The token state behind the server's `/auth/*` and `/protected/*` routes.
///
/// Tokens come in generations: generation `n` issues `token-n` and `refresh-n`. The server starts
/// at generation 1. A successful `POST /auth/refresh` (with the current refresh token) moves to the
/// next generation and returns its tokens.
public final class AuthState: Sendable {
    /// How `/protected/:id` rejects a request whose access token is not the valid one.
    public enum RejectionStyle: Sendable {
        /// `401 Unauthorized` with `{"code":"TOKEN_EXPIRED",...}` and a `WWW-Authenticate` header.
        case status401
        /// `403 Forbidden` with `{"code":"TOKEN_EXPIRED",...}`.
        case status403
        /// `200 OK` with `{"error":{"error_code":5,"error_msg":"User authorization failed: invalid access_token"}}`.
        case bodyErrorCode5
    }

    private struct Storage {
        var generation = 1
        var accessToken = "token-1"
        var refreshToken = "refresh-1"
        var accessTokenValid = true
        var refreshCalls = 0
        var refreshShouldFail = false
        var holdRefresh = false
        var rejectionStyle = RejectionStyle.status401
        var tokensSeen: [String] = []
    }

    private let storage = NIOLockedValueBox(Storage())

    init() {}

    /// The access token of the current generation (`token-1` at start). After
    /// ``expireAccessToken()`` it is still reported here but `/protected` rejects it.
    public var currentAccessToken: String {
        self.storage.withLockedValue { $0.accessToken }
    }

    /// The refresh token `/auth/refresh` currently accepts (`refresh-1` at start).
    public var currentRefreshToken: String {
        self.storage.withLockedValue { $0.refreshToken }
    }

    /// Makes the current access token invalid for `/protected`; the next successful refresh
    /// returns `token-(n+1)`, which is valid again. The refresh token stays valid.
    public func expireAccessToken() {
        self.storage.withLockedValue { $0.accessTokenValid = false }
    }

    /// Makes `token` the one access token `/protected` accepts.
    public func setAccessToken(_ token: String) {
        self.storage.withLockedValue { storage in
            storage.accessToken = token
            storage.accessTokenValid = true
        }
    }

    /// How many `POST /auth/refresh` requests reached the server (counted on arrival).
    public var refreshCalls: Int {
        self.storage.withLockedValue { $0.refreshCalls }
    }

    /// When `true`, `/auth/refresh` answers `401 {"code":"REFRESH_EXPIRED",...}`.
    public var refreshShouldFail: Bool {
        get { self.storage.withLockedValue { $0.refreshShouldFail } }
        set { self.storage.withLockedValue { $0.refreshShouldFail = newValue } }
    }

    /// When `true`, `/auth/refresh` waits at gate `"refresh"` (see `TestServer.arrivals(at:)`,
    /// `TestServer.release(_:)`) before answering.
    public var holdRefresh: Bool {
        get { self.storage.withLockedValue { $0.holdRefresh } }
        set { self.storage.withLockedValue { $0.holdRefresh = newValue } }
    }

    /// How `/protected/:id` rejects an invalid token (``RejectionStyle/status401`` by default).
    public var rejectionStyle: RejectionStyle {
        get { self.storage.withLockedValue { $0.rejectionStyle } }
        set { self.storage.withLockedValue { $0.rejectionStyle = newValue } }
    }

    /// The bearer token of every `/protected` request, in arrival order (`""` when the request
    /// had no `Authorization` header; the raw header value when it was not a bearer token).
    public func tokensSeen() -> [String] {
        self.storage.withLockedValue { $0.tokensSeen }
    }

    // MARK: Used by the routes

    /// Records a `/protected` token and tells whether it is the valid access token.
    func checkAccessToken(_ token: String) -> Bool {
        self.storage.withLockedValue { storage in
            storage.tokensSeen.append(token)
            return storage.accessTokenValid && token == storage.accessToken
        }
    }

    /// Counts one refresh call.
    func countRefreshCall() {
        self.storage.withLockedValue { $0.refreshCalls += 1 }
    }

    /// Rotates to the next generation when `presented` is the current refresh token and refreshes
    /// are not set to fail; returns the new tokens, or `nil` to reject.
    func refresh(presenting presented: String?) -> (accessToken: String, refreshToken: String)? {
        self.storage.withLockedValue { storage in
            guard !storage.refreshShouldFail, let presented, presented == storage.refreshToken else { return nil }
            storage.generation += 1
            storage.accessToken = "token-\(storage.generation)"
            storage.refreshToken = "refresh-\(storage.generation)"
            storage.accessTokenValid = true
            return (storage.accessToken, storage.refreshToken)
        }
    }

    /// The current access and refresh tokens, as `/auth/login` hands them out.
    func currentTokens() -> (accessToken: String, refreshToken: String) {
        self.storage.withLockedValue { ($0.accessToken, $0.refreshToken) }
    }
}
