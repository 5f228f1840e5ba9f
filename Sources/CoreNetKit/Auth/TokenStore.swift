//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Where an ``AccessSafeRequestManager`` keeps the tokens between launches.
///
/// The manager reads it once (when created or configured), then answers from memory and writes every change back,
/// newest last. Change tokens through the manager (``AccessSafeRequestManager/setTokens(_:)``), not the store. A
/// keychain store keeps the user signed in:
///
/// ```swift
/// struct KeychainTokenStore: TokenStore {
///     func load() -> AuthTokens? { Keychain.data(for: "tokens").flatMap { try? JSONDecoder().decode(AuthTokens.self, from: $0) } }
///     func save(_ tokens: AuthTokens?) { Keychain.set(tokens.flatMap { try? JSONEncoder().encode($0) }, for: "tokens") }
/// }
/// ```
public protocol TokenStore: Sendable {
    /// The stored tokens, or `nil` when no account is signed in.
    func load() -> AuthTokens?

    /// Replaces the stored tokens; `nil` removes them. Called from any thread, never concurrently by one manager.
    func save(_ tokens: AuthTokens?)
}

/// A ``TokenStore`` in memory only: the tokens are gone when the app quits.
public final class InMemoryTokenStore: TokenStore {
    private let tokens: Locked<AuthTokens?>

    /// Creates a store holding `tokens`.
    public init(_ tokens: AuthTokens? = nil) { self.tokens = Locked(tokens) }

    public func load() -> AuthTokens? { tokens.withLock { $0 } }

    public func save(_ tokens: AuthTokens?) { self.tokens.withLock { $0 = tokens } }
}
