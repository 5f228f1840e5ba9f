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
/// One row per entry in ``table`` (created if missing), keyed by the outbox's name, so one table
/// serves many outboxes. A sender claims an entry in a transaction: of the heads of the queues
/// (each queue's oldest pending entry, `DISTINCT ON (queue)`), it locks the oldest that no other
/// sender holds with `FOR UPDATE SKIP LOCKED` — an entry behind a head is never a candidate, so
/// each queue is sent in order even across processes — sends it, records the answer and commits. A process that dies while sending
/// loses its connection, PostgreSQL rolls its transaction back, and another process sends the
/// entry again, with the same `Idempotency-Key`.
///
/// ```swift
/// let store = try await PostgresOutboxStore(
///     configuration: .init(host: "db", username: "api", password: secret, database: "api", tls: .disable),
///     outbox: "billing-webhooks")
/// let outbox = Outbox(store: store, configuration: configuration)
/// outbox.start()
/// ```
///
/// An outcome is delivered by the process that sent the entry; a process that dies between the
/// commit and the delivery leaves the row with its answer (``OutboxEntry/State/succeeded``) for
/// inspection. The store logs nothing; no error it throws carries a bind.
public final class PostgresOutboxStore: OutboxStore {
    /// The outbox's name: the rows this store reads and writes.
    public let outbox: String
    /// The table, `corenetkit_outbox` by default.
    public let table: String
    /// The most entries (pending or failed) the outbox holds.
    public let maximumEntries: Int
    /// The most bytes the stored entries may take.
    public let maximumBytes: Int
    /// `true`: other processes add and send entries of the same outbox.
    public var isShared: Bool { true }

    let configuration: PostgresConnection.Configuration
    let idle = Locked<[PostgresConnection]>([])

    /// Connects, creates ``table`` if it is missing, and returns the store.
    ///
    /// - Parameters:
    ///   - configuration: how to reach the database.
    ///   - outbox: the outbox's name; every process that drains it uses the same.
    ///   - table: lowercase letters, digits and `_`, starting with a letter.
    ///   - maximumEntries: the most entries the outbox holds; 100,000 by default.
    ///   - maximumBytes: the most bytes its entries take; 1 GiB by default.
    /// - Throws: ``BaseServerError`` `invalidRequest` for a bad table name, `cannotConnect` when
    ///   the database cannot be reached, `transport` when a statement fails.
    public init(
        configuration: PostgresConnection.Configuration, outbox: String, table: String = "corenetkit_outbox",
        maximumEntries: Int = 100_000, maximumBytes: Int = 1 << 30
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
        try await withConnection { connection in
            try await self.run("BEGIN", on: connection)
            try await self.run("SELECT pg_advisory_xact_lock(hashtext(\(table)))", on: connection)
            try await self.run(
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: table) (
                    id text PRIMARY KEY, outbox text NOT NULL, queue text NOT NULL, seq bigserial,
                    state text NOT NULL DEFAULT 'pending', delivered boolean NOT NULL DEFAULT false,
                    entry text NOT NULL, settlement text, enqueued_at timestamptz NOT NULL DEFAULT now(),
                    settled_at timestamptz)
                """, on: connection)
            try await self.run(
                """
                CREATE INDEX IF NOT EXISTS \(unescaped: table)_heads ON \(unescaped: table) (outbox, queue, seq)
                WHERE state = 'pending'
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
            try await self.run("BEGIN", on: connection)
            let rows = try await self.query(
                """
                SELECT o.entry FROM \(unescaped: self.table) o
                WHERE o.state = 'pending' AND o.id IN (
                    SELECT DISTINCT ON (queue) id FROM \(unescaped: self.table)
                    WHERE outbox = \(self.outbox) AND state = 'pending' ORDER BY queue, seq)
                ORDER BY o.seq LIMIT 1 FOR UPDATE SKIP LOCKED
                """, on: connection)
            var claimed: OutboxEntry?
            for try await text in rows.decode(String.self) { claimed = try Self.decode(OutboxEntry.self, text) }
            guard let entry = claimed else {
                try await self.run("COMMIT", on: connection)
                return nil
            }
            guard let settlement = await send(entry) else {
                try await self.run("ROLLBACK", on: connection)
                return entry
            }
            let settled = entry.settled(settlement)
            let state = settled.state.rawValue
            try await self.run(
                """
                UPDATE \(unescaped: self.table) SET state = \(state), settlement = \(try Self.encode(settled)),
                    settled_at = now() WHERE id = \(entry.id.rawValue)
                """, on: connection)
            try await self.run("COMMIT", on: connection)
            return settled
        }
    }

    public func entries(in state: OutboxEntry.State) async throws -> [OutboxEntry] {
        try await withConnection { connection in
            let rows = try await self.query(
                """
                SELECT coalesce(settlement, entry) FROM \(unescaped: self.table)
                WHERE outbox = \(self.outbox) AND state = \(state.rawValue) ORDER BY seq
                """, on: connection)
            var entries: [OutboxEntry] = []
            for try await text in rows.decode(String.self) { entries.append(try Self.decode(OutboxEntry.self, text)) }
            return entries
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
                AND state IN ('pending', 'failed') FOR UPDATE SKIP LOCKED
                """, on: connection)
            var found = false
            for try await _ in rows.decode(String.self) { found = true }
            if found {
                try await self.run("DELETE FROM \(unescaped: self.table) WHERE id = \(id.rawValue)", on: connection)
            }
            try await self.run("COMMIT", on: connection)
            return found
        }
    }

    /// Always empty: an outcome is delivered by the process that sent the entry.
    public func undelivered() async throws -> [OutboxEntry] { [] }

    public func markDelivered(_ id: OutboxEntry.ID) async throws {
        try await withConnection { connection in
            try await self.run(
                "DELETE FROM \(unescaped: self.table) WHERE id = \(id.rawValue) AND state = 'succeeded'", on: connection
            )
            try await self.run(
                "UPDATE \(unescaped: self.table) SET delivered = true WHERE id = \(id.rawValue) AND state = 'failed'",
                on: connection)
        }
    }
}
#endif
