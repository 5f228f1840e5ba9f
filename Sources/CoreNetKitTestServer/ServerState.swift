//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Everything mutable that the server's routes and the test-facing API share. It lives in a
/// single `NIOLockedValueBox` owned by ``ServerCore``; continuations are collected under the lock and
/// resumed after it is released.
struct ServerState {
    /// Key of the per-route hit counter.
    struct HitKey: Hashable {
        let method: String
        let path: String
    }

    /// One named gate.
    struct Gate {
        /// How many requests reached the gate since the server started.
        var arrivals = 0
        /// While open, requests pass straight through.
        var isOpen = false
        /// Requests currently held, by id.
        var held: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    /// A caller of `waitForArrivals(at:count:timeout:)` waiting for a gate's count.
    struct ArrivalWaiter {
        let gate: String
        let count: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    var hits: [HitKey: Int] = [:]
    var totalHits = 0
    /// Connections accepted by a TLS server, and what they negotiated.
    var connections = ConnectionCounts()

    var gates: [String: Gate] = [:]
    var arrivalWaiters: [Int: ArrivalWaiter] = [:]
    var nextID = 0
    var isStopped = false

    /// `/counter/:key` values.
    var counters: [String: Int] = [:]
    /// `/cache/etag/:key` versions (absent means 1).
    var cacheVersions: [String: Int] = [:]
    var noStoreHits = 0
    var varyHits = 0
    /// Highest id in `/feed`; the feed holds ids 1...feedMaxID.
    var feedMaxID = 50

    /// Returns a fresh id for a held request or a waiter.
    mutating func makeID() -> Int {
        self.nextID += 1
        return self.nextID
    }

    /// Removes and returns the arrival waiters of `gate` whose count has been reached.
    mutating func takeSatisfiedWaiters(gate: String, arrivals: Int) -> [CheckedContinuation<Void, any Error>] {
        guard !self.arrivalWaiters.isEmpty else { return [] }
        var satisfied: [CheckedContinuation<Void, any Error>] = []
        for (id, waiter) in self.arrivalWaiters where waiter.gate == gate && waiter.count <= arrivals {
            satisfied.append(waiter.continuation)
            self.arrivalWaiters[id] = nil
        }
        return satisfied
    }
}
