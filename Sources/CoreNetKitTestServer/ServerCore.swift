//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// The shared heart of one running ``TestServer``: the lock-protected ``ServerState``, the
/// ``AuthState`` and the bytes precomputed at startup. Routes and the public API both use it.
final class ServerCore: Sendable {
    let state = NIOLockedValueBox(ServerState())
    let auth = AuthState()
    let family = FamilyAuthState()
    let outbox = OutboxLedger()

    /// `GET /bench/page`, built once.
    let benchPage: ByteBuffer = {
        let users: [JSON] = (1...20).map { id in
            .object([("id", .int(id)), ("name", .string("User \(id)")), ("email", .string("user\(id)@example.com"))])
        }
        return JSON.object([("items", .array(users)), ("total", .int(20))]).byteBuffer
    }()

    // MARK: Hits

    /// Counts one request.
    func recordHit(method: String, path: String) {
        let key = ServerState.HitKey(method: method, path: path)
        self.state.withLockedValue { state in
            state.hits[key, default: 0] += 1
            state.totalHits += 1
        }
    }

    func hits(method: String, path: String) -> Int {
        let key = ServerState.HitKey(method: method, path: path)
        return self.state.withLockedValue { $0.hits[key] ?? 0 }
    }

    func hits(path: String) -> Int {
        self.state.withLockedValue { state in
            state.hits.reduce(0) { $1.key.path == path ? $0 + $1.value : $0 }
        }
    }

    func totalHits() -> Int {
        self.state.withLockedValue { $0.totalHits }
    }

    func resetHits() {
        self.state.withLockedValue { state in
            state.hits.removeAll()
            state.totalHits = 0
        }
    }

    // MARK: Route state

    /// Increments and returns the `/counter/:key` value.
    func nextCounterValue(_ key: String) -> Int {
        self.state.withLockedValue { state in
            state.counters[key, default: 0] += 1
            return state.counters[key]!
        }
    }

    /// Current `/cache/etag/:key` version (starts at 1).
    func cacheVersion(_ key: String) -> Int {
        self.state.withLockedValue { $0.cacheVersions[key] ?? 1 }
    }

    func bumpVersion(_ key: String) {
        self.state.withLockedValue { $0.cacheVersions[key, default: 1] += 1 }
    }

    func nextNoStoreValue() -> Int {
        self.state.withLockedValue { state in
            state.noStoreHits += 1
            return state.noStoreHits
        }
    }

    func nextVaryValue() -> Int {
        self.state.withLockedValue { state in
            state.varyHits += 1
            return state.varyHits
        }
    }

    /// Highest id currently in `/feed`.
    func feedMaxID() -> Int {
        self.state.withLockedValue { $0.feedMaxID }
    }

    func insertFeedItems(_ count: Int) {
        guard count > 0 else { return }
        self.state.withLockedValue { $0.feedMaxID += count }
    }
}
