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

/// A ``SharedTokenStore`` in PostgreSQL, for a fleet of servers that call one upstream API with one account (the
/// `Postgres` package trait; built on vapor/postgres-nio).
///
/// One row per account in ``table`` (created if missing): the tokens, whether their session ended, and a version
/// counted up on every write. A refresh runs in a transaction that locks the account's row (`SELECT … FOR UPDATE`); the
/// new tokens are committed before the lock is released. The lease is the transaction's
/// `idle_in_transaction_session_timeout`: PostgreSQL ends the session of a holder that stays silent longer, which rolls
/// back its transaction and releases the lock; a holder whose process dies releases it as soon as its connection
/// closes.
///
/// ```swift
/// let store = try await PostgresTokenStore(
///     configuration: .init(host: "db", username: "api", password: secret, database: "api", tls: .disable),
///     account: "upstream-service-account")
/// AccessSafeRequestManager.shared.configure(store: store, refresher: UpstreamRefresher())
/// ```
///
/// ``load()`` answers from what was read when the store was created or last written through it; ``save(_:)`` writes in
/// the background, in order (``write(_:)`` waits and throws). Each refresh opens one connection of its own. The store
/// logs nothing, and no error it throws carries a token.
public final class PostgresTokenStore: SharedTokenStore {
    /// The account whose tokens this store keeps (the row's key).
    public let account: String
    /// The table, `corenetkit_tokens` by default.
    public let table: String
    public let lease: Duration
    private let configuration: PostgresConnection.Configuration
    private let cached: Locked<SharedTokens>
    private let lastWrite = Locked<Task<Void, Never>?>(nil)

    /// Connects, creates ``table`` if it is missing, and reads the account's tokens.
    ///
    /// - Parameters:
    ///   - configuration: how to reach the database.
    ///   - account: the name the tokens are kept under; one row per account.
    ///   - table: the table's name: lowercase letters, digits and `_`, starting with a letter.
    ///   - lease: the longest one process may hold the refresh lock, 60 seconds by default.
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

    /// The account's tokens as last read or written through this store; `nil` when there are none or their session
    /// ended.
    public func load() -> AuthTokens? {
        cached.withLock { $0.isSessionEnded ? nil : $0.tokens }
    }

    /// Writes `tokens` in the background (after any earlier write through this store), clearing
    /// ``SharedTokens/isSessionEnded``; a write that fails is dropped (``write(_:)`` throws).
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

    /// Writes `entry` now, without taking the refresh lock.
    ///
    /// - Throws: ``BaseServerError`` `cannotConnect` or `transport`.
    public func write(_ entry: SharedTokens) async throws {
        try await withConnection { connection in
            try await self.upsert(entry, on: connection)
        }
        cached.withLock { $0 = entry }
    }

    /// The account's entry, read now.
    ///
    /// - Throws: ``BaseServerError`` `cannotConnect` or `transport`.
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
            // The connection sent nothing while `update` ran, so the server has ended a session silent for the whole
            // lease (or is about to): its lock is gone, and so is the write.
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

    /// Runs `body` on a connection of its own, closed afterwards; cancelling the Task closes it at once, which rolls
    /// back an open transaction and releases its lock.
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

    /// Runs `body`, closing `connection` when it has not finished within `limit` (a session the server ended may leave
    /// a statement unanswered). The limit is read on `ContinuousClock`.
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
