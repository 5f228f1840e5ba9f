//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension AccessSafeRequestManager {
    /// The refresh of `job` with a store other processes share: under the store's refresh lock, refresh only when the
    /// stored tokens are still `job.tokens` (the rejected ones) and their session did not end; otherwise take what
    /// another process stored. New tokens, or the end of the session, are written before the lock is released.
    static func refresh(
        _ job: Job, sharedThrough store: any SharedTokenStore,
        isSessionExpired: @escaping @Sendable (any Error) -> Bool
    ) async throws -> AuthTokens {
        let outcome: Result<AuthTokens, any Error> = try await store.withRefreshLock { stored in
            guard let current = stored.tokens, current.accessToken == job.tokens.accessToken,
                current.refreshToken == job.tokens.refreshToken, !stored.isSessionEnded
            else {
                // Another process refreshed, signed in or out, or had their refresh refused meanwhile.
                guard let other = stored.tokens, !stored.isSessionEnded else {
                    return (nil, .failure(BaseServerError.sessionEndedElsewhere(signedOut: stored.tokens == nil)))
                }
                return (nil, .success(other))
            }
            do {
                var new = try await job.refresher.refresh(job.tokens)
                if new.refreshToken == nil { new.refreshToken = job.tokens.refreshToken }
                _ = try State<Waiter>.validated(new).get()
                return (SharedTokens(tokens: new), .success(new))
            } catch {
                // A refusal that ends the session is written down, so no process sends this refresh token again; a
                // connection problem leaves the entry as it is.
                let ended = !(error is CancellationError) && isSessionExpired(error)
                return (ended ? SharedTokens(tokens: current, isSessionEnded: true) : nil, .failure(error))
            }
        }
        return try outcome.get()
    }
}

extension BaseServerError {
    /// Another process sharing the token store ended the session: its refresh was refused, or it signed out.
    static func sessionEndedElsewhere(signedOut: Bool) -> BaseServerError {
        BaseServerError(
            code: .unauthorized,
            message: signedOut
                ? "another process sharing the token store signed out"
                : "another process's refresh of these tokens was refused; the session is over")
    }
}
