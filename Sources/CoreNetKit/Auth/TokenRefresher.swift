//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Exchanges a refresh token for new tokens by calling the server's refresh endpoint.
///
/// The ``AccessSafeRequestManager`` calls it at most once at a time and gives up after
/// ``AccessSafeRequestManager/Options/refreshTimeout``. Requests it performs skip that manager, so the refresh never
/// waits for itself; still, mark them ``ServerRequest/requiresAuthorization`` `false`.
///
/// ```swift
/// struct APIRefresher: TokenRefresher {
///     func refresh(_ tokens: AuthTokens) async throws -> AuthTokens {
///         let reply = try await RefreshTokenRequest(refreshToken: tokens.refreshToken ?? "").performAsync()
///         return AuthTokens(accessToken: reply.accessToken, refreshToken: reply.refreshToken, expiresIn: reply.expiresIn)
///     }
/// }
/// ```
public protocol TokenRefresher: Sendable {
    /// New tokens for `tokens`, whose ``AuthTokens/refreshToken`` is set; a `nil` refresh token in the result keeps the
    /// current one. Throws why the refresh failed: waiting requests fail with
    /// ``BaseServerError/Code-swift.struct/tokenRefreshFailed`` carrying it.
    func refresh(_ tokens: AuthTokens) async throws -> AuthTokens
}

/// A ``TokenRefresher`` backed by a closure: an `async` one, or one that reports through a completion handler.
public struct ClosureTokenRefresher: TokenRefresher {
    private let body: @Sendable (AuthTokens) async throws -> AuthTokens

    /// Creates a refresher that calls `body`.
    public init(_ body: @escaping @Sendable (AuthTokens) async throws -> AuthTokens) { self.body = body }

    /// Creates a refresher that calls `body` and waits for its completion handler.
    ///
    /// `body` may call the handler at once or later, from any thread; only the first call counts. If it never does, the
    /// refresh ends at ``AccessSafeRequestManager/Options/refreshTimeout`` (nothing leaks).
    public init(
        completion body:
            @escaping @Sendable (AuthTokens, @escaping @Sendable (Result<AuthTokens, any Error>) -> Void) -> Void
    ) {
        self.body = { tokens in
            let waiter = OneShot<AuthTokens>()  // resumes once: the first completion, or cancellation
            return try await withTaskCancellationHandler {
                body(tokens) { result in waiter.resume(result) }
                return try await waiter.value
            } onCancel: {
                waiter.resume(.failure(CancellationError()))
            }
        }
    }

    public func refresh(_ tokens: AuthTokens) async throws -> AuthTokens { try await body(tokens) }
}
