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
    private struct State {
        var pending: [@Sendable () -> Void] = []
        var scheduled = false
    }

    let queue: DispatchQueue
    private let state = Locked(State())

    init(queue: DispatchQueue) { self.queue = queue }

    func async(_ block: @escaping @Sendable () -> Void) {
        let schedule: Bool = state.withLock { state in
            state.pending.append(block)
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    private func drain() {
        while true {
            let blocks: [@Sendable () -> Void] = state.withLock { state in
                let blocks = state.pending
                state.pending = []
                if blocks.isEmpty { state.scheduled = false }
                return blocks
            }
            if blocks.isEmpty { return }
            for block in blocks { block() }
        }
    }
}
