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

/// Tells an ``AccessSafeRequestManager`` which responses mean "the access token was rejected": a `401` by default,
/// another status, an error code in the body, or your own rule.
///
/// It is checked before validation on every response of a request that requires authorization.
///
/// ```swift
/// options.trigger = .status(401, 403)
/// options.trigger = .bodyErrorCode(5)                      // VK: {"error": {"error_code": 5}}
/// options.trigger = .status401.or(.bodyErrorCode(5))
/// ```
public struct RefreshTrigger: Sendable {
    private let rule: @Sendable (ServerResponse) -> Bool

    /// Creates a trigger from a rule; it runs once per response, on any thread, and must be fast.
    public init(_ rule: @escaping @Sendable (ServerResponse) -> Bool) { self.rule = rule }

    /// Whether `response` rejects the access token.
    public func matches(_ response: ServerResponse) -> Bool { rule(response) }

    /// `401 Unauthorized`: the default.
    public static let status401 = status(401)

    /// Any of the HTTP statuses `codes`.
    public static func status(_ codes: Int...) -> RefreshTrigger {
        let codes = Set(codes)
        return RefreshTrigger { codes.contains($0.statusCode) }
    }

    /// A JSON body whose value at the dot-separated `keyPath` (VK's `"error.error_code"` by default) is the number
    /// `code` or its digits as a string, whatever the status.
    public static func bodyErrorCode(_ code: Int, keyPath: String = "error.error_code") -> RefreshTrigger {
        let keys = keyPath.split(separator: ".").map(String.init)
        return RefreshTrigger { response in
            let value = keys.reduce(response.jsonIfObject) { $0?[$1] }
            return value?.intValue == code || value?.stringValue == String(code)
        }
    }

    /// A trigger that matches when this one or `other` does.
    public func or(_ other: RefreshTrigger) -> RefreshTrigger {
        RefreshTrigger { [rule] response in rule(response) || other.matches(response) }
    }
}
