//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import NIOConcurrencyHelpers

/// The token state behind `/family/*`: single-use (rotating) refresh tokens with reuse
/// detection, as OAuth 2.1 providers issue them.
///
/// Generation `n` issues `fam-access-n` and `fam-refresh-n` (generation 1 at start). Each refresh
/// token works once: presenting the current one rotates to the next generation; presenting one
/// that was already used revokes the whole family, so every later refresh fails and every access
/// token of the family is rejected. A double refresh is caught, not tolerated.
public final class FamilyAuthState: Sendable {
    private struct Storage {
        var generation = 1
        var accessTokenValid = true
        var used: Set<String> = []
        var dead: Set<String> = []
        var revoked = false
        var refreshCalls = 0
        var rotations = 0
        var deadTokenRetries = 0
        var refreshShouldFail = false
        var holdRefresh = false
        var refuseHeldRefreshes = false
        var refreshClients: [String] = []
        var successes = 0

        var accessToken: String { "fam-access-\(generation)" }
        var refreshToken: String { "fam-refresh-\(generation)" }
    }

    /// How `POST /family/refresh` answered.
    enum RefreshOutcome {
        case rotated(accessToken: String, refreshToken: String)
        case refused(code: String, message: String)
    }

    private let storage = NIOLockedValueBox(Storage())

    init() {}

    /// The current generation's access token (`fam-access-1` at start).
    public var currentAccessToken: String { storage.withLockedValue { $0.accessToken } }
    /// The refresh token that works now (`fam-refresh-1` at start).
    public var currentRefreshToken: String { storage.withLockedValue { $0.refreshToken } }
    /// Whether a reused refresh token revoked the family.
    public var isRevoked: Bool { storage.withLockedValue { $0.revoked } }
    /// How many `POST /family/refresh` requests arrived.
    public var refreshCalls: Int { storage.withLockedValue { $0.refreshCalls } }
    /// How many refreshes rotated the tokens.
    public var rotations: Int { storage.withLockedValue { $0.rotations } }
    /// How many times a refresh token that was refused (``refreshShouldFail``) was presented again.
    public var deadTokenRetries: Int { storage.withLockedValue { $0.deadTokenRetries } }
    /// How many `/family/protected` requests succeeded.
    public var successes: Int { storage.withLockedValue { $0.successes } }
    /// The `X-Fleet-Client` header of every refresh, in arrival order.
    public var refreshClients: [String] { storage.withLockedValue { $0.refreshClients } }

    /// Makes the current access token invalid; the next rotation issues a valid one.
    public func expireAccessToken() { storage.withLockedValue { $0.accessTokenValid = false } }

    /// When `true`, the refresh token presented is refused (`401 REFRESH_EXPIRED`) and dead.
    public var refreshShouldFail: Bool {
        get { storage.withLockedValue { $0.refreshShouldFail } }
        set { storage.withLockedValue { $0.refreshShouldFail = newValue } }
    }

    /// When `true`, a refresh that arrives waits at gate `"family-refresh"` before it is handled.
    public var holdRefresh: Bool {
        get { storage.withLockedValue { $0.holdRefresh } }
        set { storage.withLockedValue { $0.holdRefresh = newValue } }
    }

    /// When `true`, a refresh that was held at the gate answers `503` without using its refresh
    /// token (its client is gone, as after a SIGKILL).
    public var refuseHeldRefreshes: Bool {
        get { storage.withLockedValue { $0.refuseHeldRefreshes } }
        set { storage.withLockedValue { $0.refuseHeldRefreshes = newValue } }
    }

    // MARK: Used by the routes

    /// Counts a refresh call from `client`; tells whether it is to be held.
    func arrive(client: String) -> Bool {
        storage.withLockedValue { storage in
            storage.refreshCalls += 1
            storage.refreshClients.append(client)
            return storage.holdRefresh
        }
    }

    /// Handles a refresh presenting `presented`.
    func refresh(presenting presented: String) -> RefreshOutcome {
        storage.withLockedValue { storage in
            if storage.revoked { return .refused(code: "FAMILY_REVOKED", message: "The token family is revoked") }
            if storage.dead.contains(presented) {
                storage.deadTokenRetries += 1
                return .refused(code: "REFRESH_EXPIRED", message: "The refresh token has expired")
            }
            if presented == storage.refreshToken {
                if storage.refreshShouldFail {
                    storage.dead.insert(presented)
                    return .refused(code: "REFRESH_EXPIRED", message: "The refresh token has expired")
                }
                storage.used.insert(presented)
                storage.generation += 1
                storage.rotations += 1
                storage.accessTokenValid = true
                return .rotated(accessToken: storage.accessToken, refreshToken: storage.refreshToken)
            }
            if storage.used.contains(presented) {
                storage.revoked = true
                return .refused(code: "REFRESH_REUSED", message: "A used refresh token was presented again")
            }
            return .refused(code: "REFRESH_UNKNOWN", message: "Unknown refresh token")
        }
    }

    /// Whether a held refresh is to be refused unused.
    var refusesHeld: Bool { storage.withLockedValue { $0.refuseHeldRefreshes } }

    /// Checks a `/family/protected` token and counts a success.
    func accept(_ token: String) -> Bool {
        storage.withLockedValue { storage in
            let valid = !storage.revoked && storage.accessTokenValid && token == storage.accessToken
            if valid { storage.successes += 1 }
            return valid
        }
    }
}
