//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// Runs blocks on a queue one at a time, in submission order, even on a concurrent queue (so a context's cached result
/// reaches handlers before its terminal event). Cheaper than a serial `DispatchQueue` per context.
final class SerialDelivery: Sendable {
    let queue: DispatchQueue
    private let state = Locked(PendingBlocks())

    init(queue: DispatchQueue) { self.queue = queue }

    func async(_ block: @escaping @Sendable () -> Void) {
        if state.withLock({ $0.append(block) }) { queue.async { self.drain() } }
    }

    private func drain() {
        while case let blocks = state.withLock({ $0.take() }), !blocks.isEmpty { for block in blocks { block() } }
    }
}

/// Blocks waiting to run in order, and whether a drain that runs them is scheduled (``SerialDelivery``,
/// ``ContextCore/async(_:)``); kept under the owner's lock.
struct PendingBlocks {
    private var blocks: [@Sendable () -> Void] = []
    private var drainScheduled = false

    /// Adds `block`; `true` when the caller must schedule a drain (outside the lock).
    mutating func append(_ block: @escaping @Sendable () -> Void) -> Bool {
        blocks.append(block)
        guard !drainScheduled else { return false }
        drainScheduled = true
        return true
    }

    /// The blocks to run next, in order; when none are left, the drain ends (the next block schedules another).
    mutating func take() -> [@Sendable () -> Void] {
        defer { blocks = [] }
        if blocks.isEmpty { drainScheduled = false }
        return blocks
    }
}
