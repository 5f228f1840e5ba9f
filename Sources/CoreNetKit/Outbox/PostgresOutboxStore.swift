//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Postgres
import Foundation
import Logging
import PostgresNIO

/// An ``OutboxStore`` in PostgreSQL, which several processes drain together: the transactional
/// outbox of a server fleet (the `Postgres` package trait; built on vapor/postgres-nio).
///
/// One row per entry in ``table`` (created if missing, and given the columns it lacks), keyed by
/// the outbox's name, so one table serves many outboxes. A sender claims an entry with a session
/// advisory lock (`pg_try_advisory_lock`) on one of the heads of the queues (each queue's oldest
/// pending entry) — an entry behind a head is never a candidate, so each queue is sent in order
/// even across processes — sends it, records the answer and unlocks. No transaction stays open
/// while it sends. A process that dies while sending loses its connection, PostgreSQL releases
/// its lock, and another process sends the entry again, with the same `Idempotency-Key`.
///
/// ```swift
/// let store = try await PostgresOutboxStore(
///     configuration: .init(host: "db", username: "api", password: secret, database: "api", tls: .disable),
///     outbox: "billing-webhooks")
/// let outbox = Outbox(store: store, configuration: configuration)
/// outbox.start()
/// ```
///
/// Each attempt to send an entry is counted in its row (`attempts`) and committed before the
/// request goes out, so the retry policy's bound holds however often processes die. A settled
/// row stays until its outcome is delivered: the process that settled it holds the delivery
/// (`delivering_until`, ``deliveryLease`` from the settlement, on the database's clock) and
/// delivers it; if that process dies first, the next process to start the outbox after the lease
/// claims the outcome in ``undelivered()`` and delivers it — one process, never two live ones.
/// The store logs nothing; no error it throws carries a bind.
public final class PostgresOutboxStore: OutboxStore {
    /// The outbox's name: the rows this store reads and writes.
    public let outbox: String
    /// The table, `corenetkit_outbox` by default.
    public let table: String
    /// The most entries (pending or failed) the outbox holds.
    public let maximumEntries: Int
    /// The most bytes the stored entries may take.
    public let maximumBytes: Int
    /// How long a claim on delivering an outcome lasts: the process that settled an entry, or
    /// took its outcome from ``undelivered()``, has this long to record it delivered before
    /// another process that starts may take it over.
    public let deliveryLease: Duration
    /// `true`: other processes add and send entries of the same outbox.
    public var isShared: Bool { true }

    let configuration: PostgresConnection.Configuration
    let idle = Locked<[PostgresConnection]>([])
    /// The connection that holds each entry being sent: its attempts are counted on it, which
    /// waits for nothing else while the entry is sent.
    let sending = Locked<[OutboxEntry.ID: PostgresConnection]>([:])

    /// Connects, creates ``table`` if it is missing (or adds the columns an older table lacks),
    /// and returns the store.
    ///
    /// - Parameters:
    ///   - configuration: how to reach the database.
    ///   - outbox: the outbox's name; every process that drains it uses the same.
    ///   - table: lowercase letters, digits and `_`, starting with a letter.
    ///   - maximumEntries: the most entries the outbox holds; 100,000 by default.
    ///   - maximumBytes: the most bytes its entries take; 1 GiB by default.
    ///   - deliveryLease: how long a claim on delivering an outcome lasts; 60 seconds by default.
    /// - Throws: ``BaseServerError`` `invalidRequest` for a bad table name, `cannotConnect` when
    ///   the database cannot be reached, `transport` when a statement fails.
    public init(
        configuration: PostgresConnection.Configuration, outbox: String, table: String = "corenetkit_outbox",
        maximumEntries: Int = 100_000, maximumBytes: Int = 1 << 30, deliveryLease: Duration = .seconds(60)
    ) async throws {
        guard PostgresTokenStore.isValidTableName(table) else {
            throw BaseServerError.invalidRequest(
                "the outbox table name must be lowercase letters, digits and _, starting with a letter")
        }
        self.configuration = configuration
        self.outbox = outbox
        self.table = table
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
        self.deliveryLease = deliveryLease
        try await withConnection { connection in
            try await self.run("BEGIN", on: connection)
            try await self.run("SELECT pg_advisory_xact_lock(hashtext(\(table)))", on: connection)
            try await self.run(
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: table) (
                    id text PRIMARY KEY, outbox text NOT NULL, queue text NOT NULL, seq bigserial,
                    state text NOT NULL DEFAULT 'pending', delivered boolean NOT NULL DEFAULT false,
                    entry text NOT NULL, settlement text, enqueued_at timestamptz NOT NULL DEFAULT now(),
                    settled_at timestamptz, attempts integer NOT NULL DEFAULT 0, delivering_until timestamptz)
                """, on: connection)
            try await self.addMissingColumns(on: connection)
            try await self.run(
                """
                CREATE INDEX IF NOT EXISTS \(unescaped: table)_heads ON \(unescaped: table) (outbox, queue, seq)
                WHERE state = 'pending'
                """, on: connection)
            try await self.run(
                """
                CREATE INDEX IF NOT EXISTS \(unescaped: table)_undelivered ON \(unescaped: table) (outbox, seq)
                WHERE state <> 'pending' AND NOT delivered
                """, on: connection)
            try await self.run("COMMIT", on: connection)
        }
    }

    deinit {
        // Each connection stays alive until it has closed (PostgresNIO asserts that it was).
        for connection in idle.withLock({ $0 }) { connection.close().whenComplete { _ in _ = connection } }
    }

    /// Closes the store's idle connections and waits until they are closed; a connection in use
    /// now is closed when it is given back. Call it when the process ends.
    public func close() async {
        for connection in idle.withLock({ connections in
            defer { connections = [] }
            return connections
        }) {
            try? await connection.close()
        }
    }

    public func add(_ entry: OutboxEntry) async throws {
        let text = try Self.encode(entry)
        try await withConnection { connection in
            try await self.run("BEGIN", on: connection)
            // Adds to one outbox one at a time, so the bounds hold across processes.
            try await self.run(
                "SELECT pg_advisory_xact_lock(hashtext(\(self.table + "/" + self.outbox)))", on: connection)
            let rows = try await self.query(
                """
                SELECT count(*)::bigint, coalesce(sum(length(entry)), 0)::bigint FROM \(unescaped: self.table)
                WHERE outbox = \(self.outbox) AND state <> 'succeeded'
                """, on: connection)
            var usage = (entries: Int64(0), bytes: Int64(0))
            for try await row in rows.decode((Int64, Int64).self) { usage = row }
            guard usage.entries < self.maximumEntries else {
                try? await self.run("ROLLBACK", on: connection)
                throw BaseServerError(
                    code: .outboxFull, message: "it holds \(usage.entries) entries, its limit of \(self.maximumEntries)"
                )
            }
            guard Int(usage.bytes) + text.utf8.count <= self.maximumBytes else {
                try? await self.run("ROLLBACK", on: connection)
                throw BaseServerError(
                    code: .outboxFull,
                    message: "its entries take \(usage.bytes) bytes, near its limit of \(self.maximumBytes)")
            }
            try await self.run(
                """
                INSERT INTO \(unescaped: self.table) (id, outbox, queue, entry)
                VALUES (\(entry.id.rawValue), \(self.outbox), \(entry.queue), \(text))
                """, on: connection)
            try await self.run("COMMIT", on: connection)
        }
    }

    public func sendNext(_ send: @Sendable (OutboxEntry) async -> OutboxSettlement?) async throws -> OutboxEntry? {
        try await withConnection { connection in
            guard let (entry, lock) = try await self.claim(on: connection) else { return nil }
            // From here the entry's lock is held by this connection: a statement that fails closes
            // it (withConnection), which releases the lock.
            self.sending.withLock { $0[entry.id] = connection }
            let settlement = await send(entry)
            self.sending.withLock { $0[entry.id] = nil }
            guard let settlement else {
                try await self.unlock(lock, on: connection)
                return entry
            }
            var settled = entry.settled(settlement)
            // One statement records the answer and releases the lock. A sender that takes the lock
            // before the commit waits for it at its first write to the row (its attempt, or the
            // failure of an entry out of attempts), and then finds the entry settled. The sender
            // holds the delivery of what it settled, so a process that starts now does not take
            // it from undelivered(); the lease is on the database's clock.
            let rows = try await self.query(
                """
                WITH settled AS (
                    UPDATE \(unescaped: self.table) SET state = \(settled.state.rawValue),
                        settlement = \(try Self.encode(settled)), settled_at = now(),
                        delivering_until = clock_timestamp() + make_interval(secs => \(self.deliveryLease.timeInterval))
                    WHERE id = \(entry.id.rawValue) AND state = 'pending' RETURNING attempts)
                SELECT (SELECT attempts FROM settled), pg_advisory_unlock(hashtextextended(\(lock), 0))
                """, on: connection)
            var recorded = false
            for try await (attempts, _) in rows.decode((Int32?, Bool).self) {
                guard let attempts else { continue }
                settled.attempts = Int(attempts)
                recorded = true
            }
            // Not recorded: the claim read the entry just before another sender settled it, and
            // nothing was sent (an attempt would have found it settled).
            return recorded ? settled : entry
        }
    }

    /// Locks the oldest head of a queue that no other connection has locked, and returns it with
    /// its lock's name; `nil` when there is none.
    ///
    /// The heads are read before the lock is taken: one that another sender settled and unlocked
    /// in between is returned too, as pending. Sending it is prevented by the row: counting its
    /// attempt (``recordAttempts(_:of:)``) or failing it finds it settled.
    private func claim(on connection: PostgresConnection) async throws -> (OutboxEntry, String)? {
        let prefix = table + "/"
        // The heads in order, then the lock on the first that is free: a filter with a volatile
        // function is not pushed below the sorted subquery (OFFSET 0 keeps it a subquery), so it
        // runs on one head after another and LIMIT stops at the first locked: no other head is
        // locked on the way.
        let rows = try await query(
            """
            SELECT id, entry, attempts FROM (
                SELECT id, seq, entry, attempts FROM (
                    SELECT DISTINCT ON (queue) id, seq, entry, attempts FROM \(unescaped: table)
                    WHERE outbox = \(outbox) AND state = 'pending' ORDER BY queue, seq) heads
                ORDER BY seq OFFSET 0) ordered
            WHERE pg_try_advisory_lock(hashtextextended(\(prefix) || id, 0)) LIMIT 1
            """, on: connection)
        var claimed: (OutboxEntry, String)?
        for try await (id, text, attempts) in rows.decode((String, String, Int32).self) {
            var entry = try Self.decode(OutboxEntry.self, text)
            entry.attempts = Int(attempts)
            claimed = (entry, prefix + id)
        }
        return claimed
    }

    /// Releases the session lock `lock` (an entry's: its table and identifier).
    private func unlock(_ lock: String, on connection: PostgresConnection) async throws {
        try await run("SELECT pg_advisory_unlock(hashtextextended(\(lock), 0))", on: connection)
    }

    public func entries(in state: OutboxEntry.State) async throws -> [OutboxEntry] {
        try await withConnection { connection in
            let rows = try await self.query(
                """
                SELECT coalesce(settlement, entry), attempts FROM \(unescaped: self.table)
                WHERE outbox = \(self.outbox) AND state = \(state.rawValue) ORDER BY seq
                """, on: connection)
            return try await Self.decodeEntries(rows)
        }
    }

    public func count(in state: OutboxEntry.State) async throws -> Int {
        try await withConnection { connection in
            let rows = try await self.query(
                """
                SELECT count(*)::bigint FROM \(unescaped: self.table)
                WHERE outbox = \(self.outbox) AND state = \(state.rawValue)
                """, on: connection)
            var count: Int64 = 0
            for try await value in rows.decode(Int64.self) { count = value }
            return Int(count)
        }
    }

    public func remove(_ id: OutboxEntry.ID) async throws -> Bool {
        try await withConnection { connection in
            try await self.run("BEGIN", on: connection)
            let rows = try await self.query(
                """
                SELECT id FROM \(unescaped: self.table) WHERE id = \(id.rawValue) AND outbox = \(self.outbox)
                AND state IN ('pending', 'failed') FOR UPDATE
                """, on: connection)
            var found = false
            for try await _ in rows.decode(String.self) { found = true }
            if found {
                // An entry being sent is locked by its sender (for as long as it sends); a sender
                // that looks for it after this commits finds it gone.
                let lock = self.table + "/" + id.rawValue
                let locked = try await self.query(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended(\(lock), 0))", on: connection)
                for try await free in locked.decode(Bool.self) { found = free }
            }
            if found {
                try await self.run("DELETE FROM \(unescaped: self.table) WHERE id = \(id.rawValue)", on: connection)
            }
            try await self.run(found ? "COMMIT" : "ROLLBACK", on: connection)
            return found
        }
    }

    /// Writes the count into the entry's row, committed before it returns.
    ///
    /// - Throws: ``BaseServerError`` `cancelled` when the entry is no longer pending (another
    ///   sender settled it just before this one claimed it): it must not be sent.
    public func recordAttempts(_ attempts: Int, of id: OutboxEntry.ID) async throws {
        let write: @Sendable (PostgresConnection) async throws -> Bool = { connection in
            let rows = try await self.query(
                """
                UPDATE \(unescaped: self.table) SET attempts = \(Int32(clamping: attempts))
                WHERE id = \(id.rawValue) AND outbox = \(self.outbox) AND state = 'pending' RETURNING id
                """, on: connection)
            var recorded = false
            for try await _ in rows.decode(String.self) { recorded = true }
            return recorded
        }
        let recorded: Bool
        if let connection = sending.withLock({ $0[id] }) {
            recorded = try await write(connection)  // the sender's own, idle while the entry is sent
        } else {
            recorded = try await withConnection(write)
        }
        guard recorded else {
            throw BaseServerError(code: .cancelled, message: "the outbox entry \(id) is no longer pending")
        }
    }
}
#endif
