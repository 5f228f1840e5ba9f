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
/// The ``AccessSafeRequestManager`` calls it at most once at a time, however many requests wait, and gives up after
/// ``AccessSafeRequestManager/Options/refreshTimeout``. A request the refresher performs through a configuration with
/// the same manager skips the manager, so the refresh never waits for itself; still, mark refresh requests
/// ``ServerRequest/requiresAuthorization`` `false` to say what they are.
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
    /// New tokens for `tokens`, whose ``AuthTokens/refreshToken`` is set.
    ///
    /// A `nil` ``AuthTokens/refreshToken`` in the result keeps the current one (for servers that do not rotate it).
    ///
    /// - Throws: why the refresh failed; the waiting requests fail with
    ///   ``BaseServerError/Code-swift.struct/tokenRefreshFailed`` carrying it.
    func refresh(_ tokens: AuthTokens) async throws -> AuthTokens
}

/// A ``TokenRefresher`` backed by a closure: an `async` one, or one that reports through a completion handler.
public struct ClosureTokenRefresher: TokenRefresher {
    private let body: @Sendable (AuthTokens) async throws -> AuthTokens

    /// Creates a refresher that calls `body`.
    public init(_ body: @escaping @Sendable (AuthTokens) async throws -> AuthTokens) { self.body = body }

    /// Creates a refresher that calls `body` and waits for its completion handler.
    ///
    /// `body` may call the handler at once, on the calling thread, or later from any thread; only its first call
    /// counts. If it never calls it, the refresh ends at the manager's
    /// ``AccessSafeRequestManager/Options/refreshTimeout`` (the wait is cancelled, nothing leaks).
    public init(
        completion body:
            @escaping @Sendable (AuthTokens, @escaping @Sendable (Result<AuthTokens, any Error>) -> Void) -> Void
    ) {
        self.body = { tokens in
            let waiter = OneShot<AuthTokens>()  // resumes once: the first completion, or cancellation
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    waiter.set(continuation)
                    body(tokens) { result in waiter.resume(result) }
                }
            } onCancel: {
                waiter.resume(.failure(CancellationError()))
            }
        }
    }

    public func refresh(_ tokens: AuthTokens) async throws -> AuthTokens { try await body(tokens) }
}
