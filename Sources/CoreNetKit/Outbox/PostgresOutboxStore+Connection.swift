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

// The connections, statements and row coding of ``PostgresOutboxStore``.
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
                connection = try await PostgresConnection.connect(
                    configuration: configuration, id: Int.random(in: 1...Int.max), logger: Self.silent)
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
