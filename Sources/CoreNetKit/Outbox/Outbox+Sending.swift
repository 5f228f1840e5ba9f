//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

// Starting and stopping an ``Outbox``: its senders, and the delivery of outcomes.
extension Outbox {
    /// Starts sending: first the outcomes an earlier process settled but did not deliver, then
    /// every pending entry, ``Options/concurrency`` queues at a time, and every entry queued
    /// later. Calling it again while started does nothing. A started outbox keeps itself alive
    /// until ``stop()``.
    public func start() {
        state.withLock { state in
            guard state.runner == nil else { return }
            state.runner = Task { await self.run() }
        }
    }

    /// Stops sending and waits until the senders have ended. An entry being sent is cancelled and
    /// stays pending (it may have reached the server: its key makes sending it again safe). Every
    /// ``outcomes()`` sequence ends.
    public func stop() async {
        let (runner, streams) = state.withLock { state in
            defer {
                state.runner = nil
                state.streams = [:]
            }
            return (state.runner, Array(state.streams.values))
        }
        runner?.cancel()
        await runner?.value
        for stream in streams { stream.finish() }
    }

    private func run() async {
        let backlog = (try? await store.undelivered()) ?? []
        let (settled, input) = AsyncStream<OutboxEntry>.makeStream()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for entry in backlog { await self.deliver(entry) }
                for await entry in settled { await self.deliver(entry) }
            }
            await withTaskGroup(of: Void.self) { senders in
                for _ in 0..<options.concurrency { senders.addTask { await self.work(input) } }
            }
            input.finish()
        }
    }

    /// One sender: claims the next entry, sends it, records what became of it, until cancelled.
    private func work(_ settled: AsyncStream<OutboxEntry>.Continuation) async {
        let sender = OutboxSender(configuration: configuration, options: options)
        let (clock, heldDelay, pollInterval) = (configuration.clock, options.heldDelay, options.pollInterval)
        let store = self.store
        while !Task.isCancelled {
            let generation = wakeup.generation
            do {
                let entry = try await store.sendNext { entry in
                    let decision = await sender.send(entry) { attempts in
                        try await store.recordAttempts(attempts, of: entry.id)
                    }
                    switch decision {
                    case .settle(let settlement): return settlement
                    case .keep: return nil
                    case .hold:
                        try? await clock.pause(for: heldDelay)
                        return nil
                    case .stall:
                        try? await clock.pause(for: pollInterval)
                        return nil
                    }
                }
                if let entry {
                    if entry.state != .pending { settled.yield(entry) }
                    wakeup.bump()
                    continue
                }
            } catch {
                await idle(generation, polling: true)  // the store failed: look again later
                continue
            }
            await idle(generation, polling: store.isShared)
        }
    }

    /// Waits until something is queued or a queue becomes free, or, when `polling`, at most
    /// ``Options/pollInterval``.
    private func idle(_ generation: Int, polling: Bool) async {
        let wake = polling ? configuration.clock.wake(after: options.pollInterval) { [wakeup] in wakeup.bump() } : nil
        await wakeup.wait(after: generation)
        wake?.cancel()
    }

    /// Tells every outcome sequence and the kind's handler; the delivery is recorded once the
    /// handler ran (at once without one). Never waits for the handler: a busy callback queue
    /// holds up neither the senders nor ``stop()``.
    private func deliver(_ entry: OutboxEntry) async {
        let (kind, streams) = state.withLock { ($0.kinds[entry.kind], Array($0.streams.values)) }
        let outcome = OutboxSender.outcome(of: entry, kind: kind, decoder: configuration.decoder)
        for stream in streams { stream.yield(outcome) }
        let store = self.store
        guard let handler = kind?.handler else {
            try? await store.markDelivered(entry.id)
            return
        }
        (options.callbackQueue ?? configuration.callbackQueue).async {
            handler(outcome)
            Task { try? await store.markDelivered(entry.id) }
        }
    }
}
