//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The credentials of one signed-in account: access token, refresh token, and the expiry if the server said.
///
/// Printing, `dump` and interpolation show `<redacted>` for the tokens, so they never reach a log by accident.
///
/// ```swift
/// let tokens = AuthTokens(accessToken: response.accessToken, refreshToken: response.refreshToken,
///                         expiresIn: response.expiresIn)
/// ```
public struct AuthTokens: Sendable, Hashable, Codable {
    /// The token sent with every request that requires authorization.
    public var accessToken: String
    /// The token the ``TokenRefresher`` exchanges for new tokens; `nil` when the account cannot refresh (a rejection
    /// then ends in ``BaseServerError/Code-swift.struct/unauthorized``).
    public var refreshToken: String?
    /// When ``accessToken`` expires, if known; the ``AccessSafeRequestManager`` then refreshes shortly before it.
    public var expiresAt: Date?
    /// A lifetime not yet turned into ``expiresAt``: `expires_in` counts from when the manager receives the tokens.
    var pendingLifetime: TimeInterval?

    /// Creates tokens.
    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// Creates tokens whose access token expires `expiresIn` seconds (OAuth 2 `expires_in`; `nil` when unknown) after
    /// `now`.
    ///
    /// Without `now`, the expiry counts from when the ``AccessSafeRequestManager`` receives the tokens (from
    /// ``AccessSafeRequestManager/setTokens(_:)``, its ``TokenRefresher`` or its ``TokenStore``), read from its
    /// ``AccessSafeRequestManager/Options/clock``; ``expiresAt`` is `nil` until then.
    public init(accessToken: String, refreshToken: String? = nil, expiresIn: TimeInterval?, now: Date? = nil) {
        self.init(accessToken: accessToken, refreshToken: refreshToken)
        if let now {
            expiresAt = expiresIn.map { now.addingTimeInterval($0) }
        } else {
            pendingLifetime = expiresIn
        }
    }

    /// The tokens with a pending lifetime counted from `now`.
    func anchored(at now: Date) -> AuthTokens {
        guard let lifetime = pendingLifetime else { return self }
        var anchored = self
        anchored.expiresAt = now.addingTimeInterval(lifetime)
        anchored.pendingLifetime = nil
        return anchored
    }
}

extension AuthTokens: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        let expiry = expiresAt.map { "\($0)" } ?? "unknown"
        let refresh = refreshToken == nil ? "nil" : LogRedactor.mask
        return "AuthTokens(accessToken: \(LogRedactor.mask), refreshToken: \(refresh), expiresAt: \(expiry))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": LogRedactor.mask,
                "refreshToken": refreshToken == nil ? "nil" : LogRedactor.mask,
                "expiresAt": expiresAt as Any,
            ])
    }
}
