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

// The connections, statements, columns and row coding of ``PostgresOutboxStore``.
extension PostgresOutboxStore {
    /// Every column of this outbox's rows as JSON text, one row a line: what the tests search
    /// for secrets.
    func storedText() async throws -> String {
        try await withConnection { connection in
            let rows = try await self.query(
                "SELECT row_to_json(t)::text FROM \(unescaped: self.table) t WHERE outbox = \(self.outbox)",
                on: connection)
            var text = ""
            for try await row in rows.decode(String.self) { text += row + "\n" }
            return text
        }
    }

    /// A logger that drops everything: the store never logs.
    private static let silent = Logger(label: "CoreNetKit.PostgresOutboxStore") { _ in SwiftLogNoOpLogHandler() }

    /// Runs `body` on an idle connection of the store's (or a new one), which goes back to the
    /// idle ones afterwards; a connection whose statement failed is closed instead (which rolls
    /// back its open transaction).
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection: PostgresConnection
        if let reused = idle.withLock({ $0.popLast() }) {
            connection = reused
        } else {
            do {
                // Not cancelled with the caller (a sender the outbox stops): with PostgresNIO 1.33 a
                // statement on a connection whose connect was cancelled as it finished was seen never
                // to complete, and stop() with it. The connect timeout bounds the connect instead.
                let configuration = configuration
                connection = try await Task {
                    try await PostgresConnection.connect(
                        configuration: configuration, id: Int.random(in: 1...Int.max), logger: Self.silent)
                }.value
            } catch {
                throw BaseServerError(
                    code: .cannotConnect, message: "cannot connect to the outbox's database (\(Self.describe(error)))")
            }
        }
        do {
            let value = try await body(connection)
            idle.withLock { $0.append(connection) }
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    func run(_ query: PostgresQuery, on connection: PostgresConnection) async throws {
        do {
            try await connection.query(query, logger: Self.silent)
        } catch {
            throw Self.failure(error)
        }
    }

    func query(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> PostgresRowSequence {
        do {
            return try await connection.query(query, logger: Self.silent)
        } catch {
            throw Self.failure(error)
        }
    }

    /// Adds the columns a table made by an earlier version lacks: the count of attempts and the
    /// delivery claim. Asks first, so a table that has them is not locked to be altered.
    func addMissingColumns(on connection: PostgresConnection) async throws {
        let rows = try await query(
            """
            SELECT column_name::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(table)
            """, on: connection)
        var columns: Set<String> = []
        for try await name in rows.decode(String.self) { columns.insert(name) }
        if !columns.contains("attempts") {
            try await run(
                "ALTER TABLE \(unescaped: table) ADD COLUMN IF NOT EXISTS attempts integer NOT NULL DEFAULT 0",
                on: connection)
        }
        if !columns.contains("delivering_until") {
            try await run(
                "ALTER TABLE \(unescaped: table) ADD COLUMN IF NOT EXISTS delivering_until timestamptz",
                on: connection)
        }
    }

    /// The entries of `rows` of `(coalesce(settlement, entry), attempts)`, in their order.
    static func decodeEntries(_ rows: PostgresRowSequence) async throws -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        for try await (text, attempts) in rows.decode((String, Int32).self) {
            var entry = try decode(OutboxEntry.self, text)
            entry.attempts = Int(attempts)
            entries.append(entry)
        }
        return entries
    }

    static func encode(_ entry: OutboxEntry) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(entry), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            return try decoder.decode(T.self, from: Data(text.utf8))
        } catch {
            throw BaseServerError(code: .transport, message: "an outbox row cannot be read", underlyingError: error)
        }
    }

    static func failure(_ error: any Error) -> BaseServerError {
        if let error = error as? BaseServerError { return error }
        return BaseServerError(code: .transport, message: "the outbox's database failed (\(describe(error)))")
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(type(of: error))" }
        if let state = error.serverInfo?[.sqlState] {
            return "SQLSTATE \(state): \(error.serverInfo?[.message] ?? "")"
        }
        return "\(error.code)"
    }
}
#endif
