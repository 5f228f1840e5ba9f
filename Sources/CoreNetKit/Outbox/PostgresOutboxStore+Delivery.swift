//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Postgres
import Foundation
import PostgresNIO

// The delivery of ``PostgresOutboxStore``'s outcomes: claimed by one process, then recorded.
extension PostgresOutboxStore {
    /// Claims the outcomes of this outbox that were settled but not delivered and that no live
    /// process holds — their deliverer died, or never held them (a row an older version of the
    /// store settled) — for ``deliveryLease``, and returns them, oldest first.
    ///
    /// Two processes that start together share them out: each outcome goes to one of them
    /// (`FOR UPDATE SKIP LOCKED`, and a claim that has not lapsed is skipped). An outcome the
    /// caller does not record as delivered within the lease is handed out again, to the next
    /// process that asks after it.
    public func undelivered() async throws -> [OutboxEntry] {
        try await withConnection { connection in
            let rows = try await self.query(
                """
                WITH claimed AS MATERIALIZED (
                    SELECT id FROM \(unescaped: self.table)
                    WHERE outbox = \(self.outbox) AND state <> 'pending' AND NOT delivered
                    AND (delivering_until IS NULL OR delivering_until <= clock_timestamp())
                    FOR UPDATE SKIP LOCKED)
                UPDATE \(unescaped: self.table) o
                SET delivering_until = clock_timestamp() + make_interval(secs => \(self.deliveryLease.timeInterval))
                FROM claimed WHERE o.id = claimed.id
                RETURNING coalesce(o.settlement, o.entry), o.attempts, o.seq
                """, on: connection)
            var claimed: [(OutboxEntry, Int64)] = []
            for try await (text, attempts, seq) in rows.decode((String, Int32, Int64).self) {
                var entry = try Self.decode(OutboxEntry.self, text)
                entry.attempts = Int(attempts)
                claimed.append((entry, seq))
            }
            return claimed.sorted { $0.1 < $1.1 }.map(\.0)
        }
    }

    /// Records the delivery: a succeeded row is deleted, a failed one stays in the failed list,
    /// marked delivered.
    public func markDelivered(_ id: OutboxEntry.ID) async throws {
        try await withConnection { connection in
            try await self.run(
                """
                DELETE FROM \(unescaped: self.table)
                WHERE id = \(id.rawValue) AND outbox = \(self.outbox) AND state = 'succeeded'
                """, on: connection)
            try await self.run(
                """
                UPDATE \(unescaped: self.table) SET delivered = true, delivering_until = NULL
                WHERE id = \(id.rawValue) AND outbox = \(self.outbox) AND state = 'failed'
                """, on: connection)
        }
    }
}
#endif
