//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOConcurrencyHelpers

/// What `POST /outbox/apply/:queue/:seq` did: a server that honours `Idempotency-Key`. The first
/// request with a key applies its change (recorded in order, per queue) and stores its answer;
/// a later request with the same key gets the stored answer and applies nothing.
public final class OutboxLedger: Sendable {
    private struct State {
        var effects: [String: Int] = [:]
        var hits: [String: Int] = [:]
        var applied: [String: [Int]] = [:]
        var answers: [String: String] = [:]
        var authorizations: [String: String] = [:]
        var unkeyed = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state = NIOLockedValueBox(State())

    init() {}

    /// Records a request with `key`; returns the stored answer of an earlier one, or applies the
    /// change and returns `nil` (the caller answers and stores that with ``store(answer:for:)``).
    func apply(key: String?, queue: String, seq: Int, authorization: String?) -> (applied: Bool, answer: String?) {
        let (result, ready) = state.withLockedValue {
            state -> ((Bool, String?), [CheckedContinuation<Void, any Error>]) in
            guard let key else {
                state.unkeyed += 1
                return ((false, nil), [])
            }
            state.hits[key, default: 0] += 1
            if let authorization { state.authorizations[key] = authorization }
            if state.effects[key] != nil { return ((false, state.answers[key]), []) }
            state.effects[key] = 1
            state.applied[queue, default: []].append(seq)
            let total = state.effects.count
            let ready = state.waiters.filter { $0.count <= total }.map(\.continuation)
            state.waiters.removeAll { $0.count <= total }
            return ((true, nil), ready)
        }
        for waiter in ready { waiter.resume() }
        return result
    }

    func store(answer: String, for key: String) {
        state.withLockedValue { $0.answers[key] = answer }
    }

    /// How many times the change sent with `key` was applied (0 or 1 for a server that honours keys).
    public func effects(forKey key: String) -> Int { state.withLockedValue { $0.effects[key] ?? 0 } }

    /// How many requests carried `key`.
    public func hits(forKey key: String) -> Int { state.withLockedValue { $0.hits[key] ?? 0 } }

    /// Every key's request count.
    public var hitsByKey: [String: Int] { state.withLockedValue { $0.hits } }

    /// How many changes were applied, all keys together.
    public var totalEffects: Int { state.withLockedValue { $0.effects.count } }

    /// The `seq` of every change applied in `queue`, in the order they were applied.
    public func applied(queue: String) -> [Int] { state.withLockedValue { $0.applied[queue] ?? [] } }

    /// Every queue's applied `seq`s, in order.
    public var appliedByQueue: [String: [Int]] { state.withLockedValue { $0.applied } }

    /// The `Authorization` header the last request with `key` carried.
    public func authorization(forKey key: String) -> String? { state.withLockedValue { $0.authorizations[key] } }

    /// Requests that came without a key (nothing was applied for them).
    public var unkeyedRequests: Int { state.withLockedValue { $0.unkeyed } }

    /// Returns once `count` changes were applied; throws after `timeout`.
    public func waitForEffects(_ count: Int, timeout: Duration = .seconds(60)) async throws {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.failWaiters()
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready = state.withLockedValue { state -> Bool in
                if state.effects.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func failWaiters() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, any Error>] in
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters {
            waiter.resume(throwing: TestServerError.timedOut("Timed out waiting for outbox effects"))
        }
    }
}
