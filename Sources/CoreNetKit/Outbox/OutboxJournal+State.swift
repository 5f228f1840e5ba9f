//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension OutboxJournal {
    /// The entries a journal's records describe, and which queues are being sent now: a value,
    /// changed by one record at a time (the same way when the journal is read back).
    struct State: Sendable {
        struct Held: Sendable {
            var entry: OutboxEntry
            let sequence: Int
            /// The bytes of its records in the journal, counted against the store's byte bound.
            var bytes: Int
            var delivered = false
            /// The bytes of its latest attempt record, the only one a compaction keeps (and the
            /// only one counted in ``bytes``).
            var attemptBytes = 0
        }

        private(set) var held: [OutboxEntry.ID: Held] = [:]
        /// Pending entries of each queue, oldest first.
        private(set) var queues: [String: [OutboxEntry.ID]] = [:]
        /// Queues with an entry being sent now (never written: a claim dies with its process).
        private(set) var sending: Set<String> = []
        private var nextSequence = 0
        /// The bytes of every live entry's records.
        private(set) var liveBytes = 0

        var count: Int { held.count }

        /// Applies `record`, whose frame is `bytes` long. Records about an entry the state does
        /// not hold (removed before a compaction) change nothing.
        mutating func apply(_ record: Record, bytes: Int) {
            switch record {
            case .added(let entry):
                guard held[entry.id] == nil else { return }
                held[entry.id] = Held(entry: entry, sequence: nextSequence, bytes: bytes)
                nextSequence += 1
                liveBytes += bytes
                if entry.state == .pending { queues[entry.queue, default: []].append(entry.id) }
            case .succeeded(let id, let response):
                settle(id, .succeeded(response), bytes: bytes)
            case .failed(let id, let failure):
                settle(id, .failed(failure), bytes: bytes)
            case .delivered(let id):
                guard var entry = held[id] else { return }
                if entry.entry.state == .succeeded {
                    drop(id)
                } else {
                    entry.delivered = true
                    entry.bytes += bytes
                    liveBytes += bytes
                    held[id] = entry
                }
            case .removed(let id):
                drop(id)
            case .attempted(let id, let attempts):
                guard var entry = held[id], entry.entry.state == .pending else { return }
                entry.entry.attempts = attempts
                entry.bytes += bytes - entry.attemptBytes
                liveBytes += bytes - entry.attemptBytes
                entry.attemptBytes = bytes
                held[id] = entry
            }
        }

        private mutating func settle(_ id: OutboxEntry.ID, _ settlement: OutboxSettlement, bytes: Int) {
            guard var entry = held[id], entry.entry.state == .pending else { return }
            entry.entry = entry.entry.settled(settlement)
            entry.bytes += bytes
            liveBytes += bytes
            held[id] = entry
            queues[entry.entry.queue]?.removeAll { $0 == id }
            if queues[entry.entry.queue]?.isEmpty == true { queues[entry.entry.queue] = nil }
        }

        private mutating func drop(_ id: OutboxEntry.ID) {
            guard let entry = held.removeValue(forKey: id) else { return }
            liveBytes -= entry.bytes
            queues[entry.entry.queue]?.removeAll { $0 == id }
            if queues[entry.entry.queue]?.isEmpty == true { queues[entry.entry.queue] = nil }
        }

        /// Claims the oldest head of a queue that is not being sent.
        mutating func claim() -> OutboxEntry? {
            var best: Held?
            for (queue, ids) in queues where !sending.contains(queue) {
                guard let id = ids.first, let candidate = held[id] else { continue }
                if best == nil || candidate.sequence < best!.sequence { best = candidate }
            }
            guard let best else { return nil }
            sending.insert(best.entry.queue)
            return best.entry
        }

        mutating func release(_ queue: String) {
            sending.remove(queue)
        }

        /// Whether `id` is the entry being sent in its queue.
        func isSending(_ id: OutboxEntry.ID) -> Bool {
            guard let entry = held[id]?.entry, entry.state == .pending else { return false }
            return sending.contains(entry.queue) && queues[entry.queue]?.first == id
        }

        func entry(_ id: OutboxEntry.ID) -> OutboxEntry? { held[id]?.entry }

        /// Every held entry with `filter`, in the order they were queued.
        func entries(where filter: (Held) -> Bool) -> [OutboxEntry] {
            held.values.filter(filter).sorted { $0.sequence < $1.sequence }.map(\.entry)
        }

        /// The records that rebuild this state: what a compaction writes.
        func compactedRecords() -> [Record] {
            held.values.sorted { $0.sequence < $1.sequence }.flatMap { held -> [Record] in
                var pending = held.entry
                pending.state = .pending
                pending.failure = nil
                pending.response = nil
                pending.attempts = 0
                var records: [Record] = [.added(pending)]
                // Before the settlement: an attempt record about a settled entry changes nothing.
                if held.entry.attempts > 0 { records.append(.attempted(held.entry.id, held.entry.attempts)) }
                if let response = held.entry.response { records.append(.succeeded(held.entry.id, response)) }
                if let failure = held.entry.failure { records.append(.failed(held.entry.id, failure)) }
                if held.delivered { records.append(.delivered(held.entry.id)) }
                return records
            }
        }
    }
}
