//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Postgres
import CoreNetKitTestServer
import Foundation
import PostgresNIO
import Testing

@testable import CoreNetKit

/// Issue 22 with PostgresTokenStore (the `Postgres` trait), against a real PostgreSQL server:
/// `.ci/run` starts one. They run whenever the trait is on, and fail with a clear message when no
/// server answers (they never skip: a trait that is on is tested).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct FleetPostgresTokenStoreTests {
    @Test func eightProcessesWithAnExpiredTokenMakeOneRefreshAndAll200RequestsSucceed() async throws {
        try await withTestServer { server in
            let store = try await TestDatabase.store()
            try await store.write(SharedTokens(tokens: FleetFixture.firstTokens))

            let reports = try await FleetFixture.storm(8, server: server, store: "postgres:\(store.account)")

            #expect(reports.map { $0?.successes } == Array(repeating: 25, count: 8))
            #expect(server.family.refreshCalls == 1)
            #expect(server.family.rotations == 1)
            #expect(server.family.successes == 200)
            #expect(!server.family.isRevoked)
            #expect(try await store.entry().tokens?.refreshToken == "fam-refresh-2")
        }
    }

    @Test func aProcessKilledWhileHoldingTheRefreshLockLetsTheOthersRefreshOnceAndSucceed() async throws {
        try await withTestServer { server in
            let store = try await TestDatabase.store()
            try await store.write(SharedTokens(tokens: FleetFixture.firstTokens))

            let (victim, reports) = try await FleetFixture.killTheRefresher(
                4, server: server, store: "postgres:\(store.account)", lease: .seconds(5))

            #expect(reports[victim] == nil)
            for (index, report) in reports.enumerated() where index != victim {
                #expect(report?.successes == 25)
            }
            #expect(server.family.rotations == 1)
            #expect(server.family.refreshCalls == 2)
            #expect(!server.family.isRevoked)
            #expect(try await store.entry().tokens?.accessToken == "fam-access-2")
        }
    }

    @Test func aRefusedRefreshEndsTheSessionOnceInEveryProcessAndNoneSendsTheDeadTokenAgain() async throws {
        try await withTestServer { server in
            let store = try await TestDatabase.store()
            try await store.write(SharedTokens(tokens: FleetFixture.firstTokens))

            let reports = try await FleetFixture.refusedRefresh(8, server: server, store: "postgres:\(store.account)")

            for report in reports {
                #expect(report?.failures == ["tokenRefreshFailed": 25])
                #expect(report?.sessionEnds == 1)
            }
            #expect(server.family.refreshCalls == 1)
            #expect(server.family.deadTokenRetries == 0)
            #expect(try await store.entry() == SharedTokens(tokens: FleetFixture.firstTokens, isSessionEnded: true))
        }
    }

    @Test func aHolderSilentPastItsLeaseLosesTheLockAndItsWrite() async throws {
        let account = "lease-\(UUID().uuidString)"
        let hung = try await TestDatabase.store(account: account, lease: .milliseconds(300))
        // The taker's own lease is long: with 300 ms, a loaded machine that paused it for that
        // long between two statements had the database end its session too (SQLSTATE 25P03).
        let other = try await TestDatabase.store(account: account, lease: .seconds(30))
        try await hung.write(SharedTokens(tokens: FleetFixture.firstTokens))
        let holding = Once<Void>()
        let wakeUp = Once<Void>()
        let late = Task {
            try await hung.withRefreshLock { _ in
                holding.fire(())
                await wakeUp.value
                return (SharedTokens(tokens: AuthTokens(accessToken: "late")), ())
            }
        }
        await holding.value

        let taken = try await withTimeout(30, "the take-over") {
            try await other.withRefreshLock { stored in
                (SharedTokens(tokens: AuthTokens(accessToken: "taken-over")), stored.tokens?.accessToken)
            }
        }
        wakeUp.fire(())

        #expect(taken == "fam-access-1")
        await #expect(throws: BaseServerError.self) {
            try await withTimeout(30, "the late write to be refused") { try await late.value }
        }
        #expect(try await other.entry().tokens?.accessToken == "taken-over")
    }

    @Test func aBadTableNameIsAnInvalidRequest() async throws {
        let error = try await #require(throws: BaseServerError.self) {
            _ = try await PostgresTokenStore(
                configuration: TestDatabase.configuration(), account: "a", table: "x; DROP")
        }
        #expect(error.code == .invalidRequest)
    }
}

/// The PostgreSQL server of the tests: `CORENETKIT_POSTGRES_HOST` (127.0.0.1), `_PORT` (5432),
/// `_USER` (postgres), `_PASSWORD`, `_DATABASE` (postgres); the children read the same variables.
enum TestDatabase {
    static func configuration() -> PostgresConnection.Configuration {
        let environment = ProcessInfo.processInfo.environment
        return PostgresConnection.Configuration(
            host: environment["CORENETKIT_POSTGRES_HOST"] ?? "127.0.0.1",
            port: Int(environment["CORENETKIT_POSTGRES_PORT"] ?? "") ?? 5432,
            username: environment["CORENETKIT_POSTGRES_USER"] ?? "postgres",
            password: environment["CORENETKIT_POSTGRES_PASSWORD"],
            database: environment["CORENETKIT_POSTGRES_DATABASE"] ?? "postgres", tls: .disable)
    }

    /// A store for a fresh account; fails with a clear message when no server answers.
    static func store(account: String = "fleet-\(UUID().uuidString)", lease: Duration = .seconds(60)) async throws
        -> PostgresTokenStore
    {
        do {
            return try await PostgresTokenStore(configuration: configuration(), account: account, lease: lease)
        } catch let error as BaseServerError where error.code == .cannotConnect {
            let environment = ProcessInfo.processInfo.environment
            let host = environment["CORENETKIT_POSTGRES_HOST"] ?? "127.0.0.1"
            let port = environment["CORENETKIT_POSTGRES_PORT"] ?? "5432"
            Issue.record(
                "No PostgreSQL server answers at \(host):\(port): the Postgres trait's tests need one (.ci/run starts it; set CORENETKIT_POSTGRES_HOST/PORT/USER/DATABASE). \(error.message ?? "")"
            )
            throw error
        }
    }
}
#endif
