//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

/// An ``OutboxStore`` in one file: an append-only journal for an app or a single process.
///
/// Queuing and cancelling an entry are records appended to the journal and synced to disk
/// (`fsync`) before the call returns, so an entry that ``Outbox/enqueue(_:kind:queue:)-(ServerRequest,_,_)`` accepted
/// survives the process being killed, or the machine losing power, at any moment. What became of
/// a sent entry, and the count of attempts to send it (``OutboxEntry/attempts``), are appended
/// without waiting for the disk: lost in a power failure, the entry is sent again with its key
/// (and its last attempts are not counted). Each record carries its length and a CRC-32: when
/// the store opens, a record torn by a crash (or damaged bytes) is found, cut off and reported in
/// ``damage``; every whole record before it is kept. When the journal holds much more than its
/// live entries, it is compacted: rewritten beside itself and renamed over itself.
///
/// ```swift
/// let store = try FileOutboxStore(url: supportDirectory.appendingPathComponent("outbox.journal"))
/// let outbox = Outbox(store: store)
/// ```
///
/// One process at a time may open a journal: the store holds an advisory lock on
/// `<file>.lock` for as long as it lives (the kernel releases it when the process dies). The
/// file is readable by its owner only (`0600`). Every method is thread-safe; the file is read
/// and written on one serial queue of the store's own.
public final class FileOutboxStore: OutboxStore {
    /// The journal file.
    public let url: URL
    /// The most entries (pending, failed or with an outcome not yet delivered) the store holds.
    public let maximumEntries: Int
    /// The most bytes the live entries' records may take.
    public let maximumBytes: Int
    /// The tail of the journal that could not be read when the store opened (torn by a crash
    /// while it was written, or damaged), and was cut off; `nil` when the journal was whole.
    public let damage: OutboxJournalDamage?
    /// `false`: no other process uses the journal while this store has it open.
    public var isShared: Bool { false }

    private struct Core {
        let file: OutboxJournalFile
        var state = OutboxJournal.State()
        let lockFD: Int32
        let compactionThreshold: Int

        /// Appends `record` and applies it; compacts the journal when it has grown past its live entries.
        ///
        /// An added or removed entry is on disk before this returns. A settlement, a delivery or an
        /// attempt is not waited for (it reaches the disk with the next synced record, or when the
        /// kernel writes it; a killed process loses none of it): lost in a power failure, the entry
        /// is sent again with its key, its outcome is delivered again — what a crash between the
        /// answer and the record does anyway — or its last attempts are not counted.
        mutating func write(_ record: OutboxJournal.Record, bytes: [UInt8]) throws {
            let sync: Bool =
                switch record {
                case .added, .removed: true
                case .succeeded, .failed, .delivered, .attempted: false
                }
            try file.append(bytes, sync: sync)
            state.apply(record, bytes: bytes.count)
            let live = state.liveBytes + OutboxJournal.header.count
            if file.length > compactionThreshold, file.length > 2 * live {
                // A failed compaction leaves the journal as it was: nothing is lost, it is tried again later.
                try? file.replace(with: state.compactedRecords())
            }
        }
    }

    private let queue = DispatchQueue(label: "CoreNetKit.FileOutboxStore")
    private let core: Locked<Core>

    /// Opens the journal at `url` (creating it if missing; its folder must exist) and reads it.
    ///
    /// - Parameters:
    ///   - url: a file URL.
    ///   - maximumEntries: the most entries the store holds; 10,000 by default.
    ///   - maximumBytes: the most bytes the live entries may take; 64 MiB by default.
    ///   - compactionThreshold: the journal is compacted once it is longer than this and more
    ///     than twice as long as its live entries; 1 MiB by default.
    ///   - lockWait: how long to wait for the journal's lock when another holder has it: a store
    ///     let go a moment ago (a child process forked then shares its lock until it starts its
    ///     program); 1 second by default.
    /// - Throws: ``BaseServerError`` `fileAccess` when the file cannot be opened, is not an
    ///   outbox journal, or another process has it open.
    public init(
        url: URL, maximumEntries: Int = 10_000, maximumBytes: Int = 64 << 20, compactionThreshold: Int = 1 << 20,
        lockWait: Duration = .seconds(1)
    ) throws {
        self.url = url
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
        let lockFD = try OutboxJournalFile.lock(url.path, waiting: lockWait)
        do {
            let file = try OutboxJournalFile(path: url.path)
            let contents = try file.load()
            var state = OutboxJournal.State()
            for record in contents.records {
                state.apply(record, bytes: (try? OutboxJournal.frame(record).count) ?? 0)
            }
            self.damage = contents.damage
            self.core = Locked(
                Core(file: file, state: state, lockFD: lockFD, compactionThreshold: compactionThreshold))
        } catch {
            close(lockFD)
            throw error
        }
    }

    deinit {
        _ = core.withLock { close($0.lockFD) }
    }

    public func add(_ entry: OutboxEntry) async throws {
        let record = OutboxJournal.Record.added(entry)
        let bytes = try OutboxJournal.frame(record)
        let (maximumEntries, maximumBytes) = (self.maximumEntries, self.maximumBytes)
        try await onQueue { core in
            guard core.state.count < maximumEntries else {
                throw BaseServerError(
                    code: .outboxFull, message: "it holds \(core.state.count) entries, its limit of \(maximumEntries)")
            }
            guard core.state.liveBytes + bytes.count <= maximumBytes else {
                throw BaseServerError(
                    code: .outboxFull,
                    message: "its entries take \(core.state.liveBytes) bytes and this one \(bytes.count), "
                        + "past its limit of \(maximumBytes)")
            }
            try core.write(record, bytes: bytes)
        }
    }

    public func sendNext(_ send: @Sendable (OutboxEntry) async -> OutboxSettlement?) async throws -> OutboxEntry? {
        guard let entry = try await onQueue({ core in core.state.claim() }) else { return nil }
        let settlement = await send(entry)
        return try await onQueue { core in
            defer { core.state.release(entry.queue) }
            guard let settlement else { return entry }
            let record: OutboxJournal.Record =
                switch settlement {
                case .succeeded(let response): .succeeded(entry.id, response)
                case .failed(let failure): .failed(entry.id, failure)
                }
            try core.write(record, bytes: try OutboxJournal.frame(record))
            return core.state.entry(entry.id) ?? entry.settled(settlement)
        }
    }

    public func entries(in state: OutboxEntry.State) async throws -> [OutboxEntry] {
        try await onQueue { core in core.state.entries { $0.entry.state == state } }
    }

    public func count(in state: OutboxEntry.State) async throws -> Int {
        try await onQueue { core in
            state == .pending
                ? core.state.queues.values.reduce(0) { $0 + $1.count }
                : core.state.entries { $0.entry.state == state }.count
        }
    }

    public func remove(_ id: OutboxEntry.ID) async throws -> Bool {
        try await onQueue { core in
            guard core.state.entry(id) != nil, !core.state.isSending(id) else { return false }
            let record = OutboxJournal.Record.removed(id)
            try core.write(record, bytes: try OutboxJournal.frame(record))
            return true
        }
    }

    public func recordAttempts(_ attempts: Int, of id: OutboxEntry.ID) async throws {
        try await onQueue { core in
            guard core.state.entry(id)?.state == .pending else {
                throw BaseServerError(code: .cancelled, message: "the outbox entry \(id) is no longer pending")
            }
            let record = OutboxJournal.Record.attempted(id, attempts)
            try core.write(record, bytes: try OutboxJournal.frame(record))
        }
    }

    public func undelivered() async throws -> [OutboxEntry] {
        try await onQueue { core in core.state.entries { $0.entry.state != .pending && !$0.delivered } }
    }

    public func markDelivered(_ id: OutboxEntry.ID) async throws {
        try await onQueue { core in
            guard core.state.entry(id) != nil else { return }
            let record = OutboxJournal.Record.delivered(id)
            try core.write(record, bytes: try OutboxJournal.frame(record))
        }
    }

    /// Runs `body` on the store's queue, with the journal and its state.
    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (inout Core) throws -> T) async throws -> T {
        // The block holds the journal, not the store: a store let go is closed (its lock
        // released) at once, so a new store on the same file can open right after it.
        let core = self.core
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try core.withLock { try body(&$0) } })
            }
        }
    }
}
