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

/// A ``TokenStore`` several processes share (an app and its extensions, workers on one host, a fleet), taking part in
/// the refresh so they refresh once.
///
/// The ``AccessSafeRequestManager`` runs every refresh inside ``withRefreshLock(_:)`` and, from the entry read under
/// the lock,
/// - refreshes only when the stored tokens are still the rejected ones, writing the new ones before unlocking;
/// - uses the stored tokens when another process refreshed them meanwhile;
/// - fails without calling the refresher when another process's refresh of them was refused
///   (``SharedTokens/isSessionEnded``), so a dead refresh token is never sent twice.
///
/// ``FileTokenStore`` serves processes on one host; `PostgresTokenStore` (the `Postgres` trait) serves a fleet.
public protocol SharedTokenStore: TokenStore {
    /// How long one holder may keep the refresh lock; make it longer than a refresh takes. A holder that dies releases
    /// it at once (the kernel or database notices); one that hangs loses it after the lease, and its late write is
    /// refused.
    ///
    /// The lease runs on a clock every sharing process can read (wall-clock time in ``FileTokenStore``'s lock file, the
    /// database server's timer for `PostgresTokenStore`), not on the configuration's ``NetworkClock``; the manager's
    /// wait (``AccessSafeRequestManager/Options/refreshTimeout`` plus the lease) does.
    var lease: Duration { get }

    /// Runs `update` under the store's refresh lock and writes what it returns before releasing it. Waits while another
    /// holder (process, or store object for the same tokens) has the lock, at most until its lease ends. `update`
    /// receives the stored entry and returns the entry to write (`nil` writes nothing) and its result. Cancelling the
    /// Task stops the wait; an `update` that throws writes nothing.
    ///
    /// - Throws: `update`'s error; a ``BaseServerError`` when the store cannot be read or written or the lease ran out
    ///   before the write (nothing written).
    func withRefreshLock<Result: Sendable>(
        _ update: (SharedTokens) async throws -> (write: SharedTokens?, result: Result)
    ) async throws -> Result
}

/// What a ``SharedTokenStore`` keeps: the tokens, and whether their session ended because their refresh was refused.
public struct SharedTokens: Sendable, Equatable, Codable {
    /// The stored tokens; `nil` when no account is signed in.
    public var tokens: AuthTokens?
    /// `true` once a refresh of ``tokens`` was refused as ending the session
    /// (``AccessSafeRequestManager/Options/isSessionExpired``): no process refreshes them again. Saving other tokens
    /// clears it.
    public var isSessionEnded: Bool

    /// Creates an entry.
    public init(tokens: AuthTokens?, isSessionEnded: Bool = false) {
        self.tokens = tokens
        self.isSessionEnded = isSessionEnded
    }
}

extension SharedTokens: CustomStringConvertible {
    public var description: String {
        "SharedTokens(tokens: \(tokens.map { "\($0)" } ?? "nil"), isSessionEnded: \(isSessionEnded))"
    }
}
