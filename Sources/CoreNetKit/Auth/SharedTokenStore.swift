//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A ``TokenStore`` that several processes share (an app and its extensions, workers on one host, a fleet of servers),
/// and that takes part in the token refresh so the fleet refreshes once.
///
/// With such a store, an ``AccessSafeRequestManager`` runs every refresh inside ``withRefreshLock(_:)``: it reads the
/// stored entry under the lock and
/// - refreshes only when the stored tokens are still the ones the server rejected, and writes the new tokens before the
///   lock is released;
/// - uses the stored tokens when another process has refreshed them meanwhile (no refresh);
/// - fails without calling the refresher when another process's refresh of these tokens was refused
///   (``SharedTokens/isSessionEnded``), so a dead refresh token is never sent twice.
///
/// Waiting processes wait on the lock, never on the refresher. Within one process the manager still makes one refresh
/// for any number of rejections. ``FileTokenStore`` serves processes on one host; `PostgresTokenStore` (the `Postgres`
/// trait) serves a fleet.
public protocol SharedTokenStore: TokenStore {
    /// How long one holder may keep the refresh lock. A process that dies while holding it releases it at once (the
    /// kernel or the database notices); one that hangs loses it after the lease, and its late write is refused. Make it
    /// longer than a refresh takes.
    ///
    /// A lease is kept by a clock every process sharing the store can read, not by the configuration's ``NetworkClock``
    /// (which is one process's own): ``FileTokenStore`` writes the lease's end as wall-clock time into its lock file,
    /// and `PostgresTokenStore` leaves it to the database server's own timer. The manager's wait for a refresh
    /// (``AccessSafeRequestManager/Options/refreshTimeout`` plus the lease) runs on the configuration's clock.
    var lease: Duration { get }

    /// Runs `update` while holding the store's refresh lock, and writes what it returns before releasing the lock.
    ///
    /// Waits while another holder (another process, or another store object for the same tokens) has the lock, at most
    /// until that holder's lease ends. `update` receives the entry as stored at that moment and returns the entry to
    /// write (`nil` writes nothing) and its result. Cancelling the calling Task stops the wait; an `update` that throws
    /// writes nothing.
    ///
    /// - Throws: the error of `update`; a ``BaseServerError`` when the store cannot be read or written or the lease ran
    ///   out before the write (nothing was written then).
    func withRefreshLock<Result: Sendable>(
        _ update: (SharedTokens) async throws -> (write: SharedTokens?, result: Result)
    ) async throws -> Result
}

/// What a ``SharedTokenStore`` keeps: the tokens, and whether the session they belong to ended because their refresh
/// was refused.
public struct SharedTokens: Sendable, Equatable, Codable {
    /// The stored tokens; `nil` when no account is signed in.
    public var tokens: AuthTokens?
    /// `true` after a process's refresh of ``tokens`` was refused in a way that ends the session
    /// (``AccessSafeRequestManager/Options/isSessionExpired``); no process refreshes them again. Saving other tokens
    /// (signing in again) clears it.
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
