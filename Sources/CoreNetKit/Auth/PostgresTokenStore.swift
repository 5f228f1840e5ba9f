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

/// A ``SharedTokenStore`` in PostgreSQL, for a fleet of servers calling one upstream API with one account (the
/// `Postgres` package trait; built on vapor/postgres-nio).
///
/// One row per account in ``table`` (created if missing): the tokens, whether their session ended, and a write counter.
/// A refresh runs in a transaction that locks the row (`SELECT … FOR UPDATE`) and commits the new tokens. The lease is
/// the transaction's `idle_in_transaction_session_timeout`: PostgreSQL ends a holder silent longer, rolling back and
/// releasing the lock; a dead holder's lock goes when its connection closes.
///
/// ```swift
/// let store = try await PostgresTokenStore(
///     configuration: .init(host: "db", username: "api", password: secret, database: "api", tls: .disable),
///     account: "upstream-service-account")
/// AccessSafeRequestManager.shared.configure(store: store, refresher: UpstreamRefresher())
/// ```
///
/// ``load()`` answers from what was last read or written here; ``save(_:)`` writes in the background, in order
/// (``write(_:)`` waits and throws). Each refresh opens its own connection. Logs nothing; no error carries a token.
public final class PostgresTokenStore: SharedTokenStore {
    /// The account whose tokens this store keeps (the row's key).
    public let account: String
    /// The table, `corenetkit_tokens` by default.
    public let table: String
    public let lease: Duration
    private let configuration: PostgresConnection.Configuration
    private let cached: Locked<SharedTokens>
    private let lastWrite = Locked<Task<Void, Never>?>(nil)

    /// Connects, creates ``table`` if missing, and reads the tokens of `account` (the row's key).
    ///
    /// `table` takes lowercase letters, digits and `_`, starting with a letter; `lease` is the longest one process may
    /// hold the refresh lock.
    ///
    /// - Throws: ``BaseServerError`` `invalidRequest` for a bad table name, `cannotConnect` when the database cannot be
    ///   reached, `transport` when a statement fails.
    public init(
        configuration: PostgresConnection.Configuration, account: String, table: String = "corenetkit_tokens",
        lease: Duration = .seconds(60)
    ) async throws {
        guard Self.isValidTableName(table) else {
            throw BaseServerError.invalidRequest(
                "the token table name must be lowercase letters, digits and _, starting with a letter")
        }
        self.configuration = configuration
        self.account = account
        self.table = table
        self.lease = lease
        self.cached = Locked(SharedTokens(tokens: nil))
        let entry = try await withConnection { connection in
            try await self.run("BEGIN", on: connection)
            // Two processes creating the table at once collide in PostgreSQL's catalog: one at a time.
            try await self.run("SELECT pg_advisory_xact_lock(hashtext(\(table)))", on: connection)
            try await self.run(
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: table) (
                    account text PRIMARY KEY, access_token text, refresh_token text, expires_at timestamptz,
                    session_ended boolean NOT NULL DEFAULT false, version bigint NOT NULL DEFAULT 0,
                    updated_at timestamptz NOT NULL DEFAULT now())
                """, on: connection)
            try await self.run("COMMIT", on: connection)
            return try await self.read(on: connection, locking: false)
        }
        cached.withLock { $0 = entry }
    }

    /// The account's tokens as last read or written through this store; `nil` when none or their session ended.
    public func load() -> AuthTokens? {
        cached.withLock { $0.isSessionEnded ? nil : $0.tokens }
    }

    /// Writes `tokens` in the background after earlier writes, clearing ``SharedTokens/isSessionEnded``; a failed write
    /// is dropped (``write(_:)`` throws).
    public func save(_ tokens: AuthTokens?) {
        let entry = SharedTokens(tokens: tokens)
        cached.withLock { $0 = entry }
        lastWrite.withLock { last in
            let previous = last
            last = Task {
                await previous?.value
                try? await self.write(entry)
            }
        }
    }

    /// Writes `entry` now, without taking the refresh lock; throws ``BaseServerError`` `cannotConnect` or `transport`.
    public func write(_ entry: SharedTokens) async throws {
        try await withConnection { connection in
            try await self.upsert(entry, on: connection)
        }
        cached.withLock { $0 = entry }
    }

    /// The account's entry, read now; throws ``BaseServerError`` `cannotConnect` or `transport`.
    public func entry() async throws -> SharedTokens {
        try await withConnection { try await self.read(on: $0, locking: false) }
    }

    public func withRefreshLock<Result: Sendable>(
        _ update: (SharedTokens) async throws -> (write: SharedTokens?, result: Result)
    ) async throws -> Result {
        try await withConnection { connection in
            try await self.run("BEGIN", on: connection)
            let timeout = "\(max(1, Int(lease.timeInterval * 1000)))ms"
            try await self.run(
                "SELECT set_config('idle_in_transaction_session_timeout', \(timeout), true)", on: connection)
            try await self.run(
                "INSERT INTO \(unescaped: table) (account) VALUES (\(account)) ON CONFLICT (account) DO NOTHING",
                on: connection)
            let stored = try await self.read(on: connection, locking: true)
            let started = ContinuousClock.now
            let (write, result) = try await update(stored)
            // The connection was silent while `update` ran: past the lease the server ended it, lock and write gone.
            let remaining = lease - (ContinuousClock.now - started)
            guard remaining > .zero else {
                guard write == nil else { throw Self.leaseEnded(lease) }
                cached.withLock { $0 = stored }
                return result  // read under the lock; nothing to commit (the rollback is the close)
            }
            try await Self.within(max(remaining, .seconds(5)), closing: connection) {
                if let write { try await self.upsert(write, on: connection) }
                try await self.run("COMMIT", on: connection)
            }
            cached.withLock { $0 = write ?? stored }
            return result
        }
    }
}

extension PostgresTokenStore {
    /// A logger that drops everything: the store never logs (a statement's binds hold tokens).
    private static let silent = Logger(label: "CoreNetKit.PostgresTokenStore") { _ in SwiftLogNoOpLogHandler() }

    /// Runs `body` on its own connection, closed afterwards; cancelling closes it at once (rolling back, unlocking).
    private func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: configuration, id: Int.random(in: 1...Int.max), logger: Self.silent)
        } catch {
            throw BaseServerError(
                code: .cannotConnect, message: "cannot connect to the token store's database (\(Self.describe(error)))")
        }
        do {
            let value = try await withTaskCancellationHandler {
                try await body(connection)
            } onCancel: {
                connection.close().whenComplete { _ in }
            }
            try? await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private func run(_ query: PostgresQuery, on connection: PostgresConnection) async throws {
        do {
            try await connection.query(query, logger: Self.silent)
        } catch {
            throw Self.failure(error)
        }
    }

    private func read(on connection: PostgresConnection, locking: Bool) async throws -> SharedTokens {
        let lock = locking ? " FOR UPDATE" : ""
        do {
            let rows = try await connection.query(
                """
                SELECT access_token, refresh_token, expires_at, session_ended FROM \(unescaped: table)
                WHERE account = \(account)\(unescaped: lock)
                """, logger: Self.silent)
            for try await (access, refresh, expiresAt, ended) in rows.decode((String?, String?, Date?, Bool).self) {
                let tokens = access.map { AuthTokens(accessToken: $0, refreshToken: refresh, expiresAt: expiresAt) }
                return SharedTokens(tokens: tokens, isSessionEnded: ended)
            }
            return SharedTokens(tokens: nil)
        } catch {
            throw Self.failure(error)
        }
    }

    private func upsert(_ entry: SharedTokens, on connection: PostgresConnection) async throws {
        let tokens = entry.tokens
        try await run(
            """
            INSERT INTO \(unescaped: table) AS stored
                (account, access_token, refresh_token, expires_at, session_ended, version, updated_at)
            VALUES (\(account), \(tokens?.accessToken), \(tokens?.refreshToken), \(tokens?.expiresAt),
                \(entry.isSessionEnded), 1, now())
            ON CONFLICT (account) DO UPDATE SET access_token = EXCLUDED.access_token,
                refresh_token = EXCLUDED.refresh_token, expires_at = EXCLUDED.expires_at,
                session_ended = EXCLUDED.session_ended, version = stored.version + 1, updated_at = now()
            """, on: connection)
    }

    /// Runs `body`, closing `connection` after `limit` (`ContinuousClock`): an ended session may leave it unanswered.
    private static func within(
        _ limit: Duration, closing connection: PostgresConnection, _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                try? await connection.close()
                return false
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else { throw leaseEnded(limit) }
        }
    }

    private static func leaseEnded(_ lease: Duration) -> BaseServerError {
        BaseServerError(
            code: .timeout,
            message:
                "the refresh lock was held past its lease of \(lease) and released by the database; nothing was written"
        )
    }

    /// A statement failed: the SQLSTATE and PostgreSQL's message, never a bind (which may hold a token).
    private static func failure(_ error: any Error) -> BaseServerError {
        if let error = error as? BaseServerError { return error }
        return BaseServerError(code: .transport, message: "the token store's database failed (\(describe(error)))")
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(type(of: error))" }
        if let state = error.serverInfo?[.sqlState] {
            return "SQLSTATE \(state): \(error.serverInfo?[.message] ?? "")"
        }
        return "\(error.code)"
    }

    static func isValidTableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.count <= 63 else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
#endif
