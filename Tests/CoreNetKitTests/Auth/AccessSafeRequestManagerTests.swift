//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@_spi(Testing) @testable import CoreNetKit

/// The refresh itself: one for many rejections, waiting, replaying, failing. Behaviours 1–5 of
/// issue 4; each test runs against its own loopback server.
@Suite(.timeLimit(.minutes(3))) struct AccessSafeRequestManagerTests {
    @Test func fiftyRejectedRequestsShareOneRefreshAndAreAllReplayedWithTheNewToken() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            server.auth.expireAccessToken()
            server.auth.holdRefresh = true
            let contexts = (1...50).map { auth.protected("\($0)") }
            let logs = contexts.map { EventLog($0) }
            try await server.waitForArrivals(at: "refresh", count: 1)
            try await auth.waitUntilWaiting(50)

            server.release("refresh")

            for (index, log) in logs.enumerated() {
                #expect(try await log.success() == ProtectedReply(id: "\(index + 1)", token: "token-2"))
            }
            await drain(auth.callbackQueue)
            #expect(server.auth.refreshCalls == 1)
            #expect(logs.allSatisfy { $0.names == ["success", "completed"] })
            let seen = server.auth.tokensSeen()
            #expect(seen.filter { $0 == "token-1" }.count == 50)
            #expect(seen.filter { $0 == "token-2" }.count == 50)
            #expect(
                auth.manager.tokens
                    == AuthTokens(
                        accessToken: "token-2", refreshToken: "refresh-2",
                        expiresAt: auth.now.now.addingTimeInterval(3600)))
        }
    }

    @Test func requestsStartedDuringARefreshWaitAndGoOutOnlyWithTheNewToken() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            server.auth.expireAccessToken()
            server.auth.holdRefresh = true
            let first = EventLog(auth.protected("first"))
            try await server.waitForArrivals(at: "refresh", count: 1)
            let later = (1...10).map { EventLog(auth.protected("later-\($0)")) }
            try await auth.waitUntilWaiting(11)
            #expect(server.hits(path: "/protected/later-1") == 0)

            server.release("refresh")

            #expect(try await first.success().token == "token-2")
            for log in later { #expect(try await log.success().token == "token-2") }
            #expect(server.auth.refreshCalls == 1)
            #expect(server.auth.tokensSeen().filter { $0 == "token-1" }.count == 1)
            #expect((1...10).allSatisfy { server.hits(path: "/protected/later-\($0)") == 1 })
        }
    }

    @Test func rejectionOfAnOlderTokenThanTheCurrentIsReplayedWithoutANewRefresh() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            let slow = EventLog(auth.protected("slow", path: "/protected-after/slow/slow"))
            try await server.waitForArrivals(at: "slow", count: 1)
            server.auth.expireAccessToken()
            #expect(try await auth.protected("fast").value.token == "token-2")
            #expect(server.auth.refreshCalls == 1)

            server.release("slow")

            #expect(try await slow.success() == ProtectedReply(id: "slow", token: "token-2"))
            #expect(server.auth.refreshCalls == 1)
            #expect(server.auth.tokensSeen() == ["token-1", "token-2", "token-1", "token-2"])
        }
    }

    @Test func secondRejectionAfterTheReplayEndsInUnauthorizedWithoutAnotherRefresh() async throws {
        try await withTestServer { server in
            let auth = AuthFixture.rejectingEveryRenewedToken(server: server)
            server.auth.expireAccessToken()

            let error = try #require(try await EventLog(auth.protected("again")).failure() as? BaseServerError)

            #expect(error.code == .unauthorized)
            #expect(error.statusCode == 401)
            #expect(server.auth.refreshCalls == 1)
            #expect(server.auth.tokensSeen() == ["token-1", "token-2"])
        }
    }

    @Test func failedRefreshFailsEveryWaitingRequestReportsTheSessionEndOnceAndLetsALaterRequestRefreshAgain()
        async throws
    {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            server.auth.expireAccessToken()
            server.auth.refreshShouldFail = true
            server.auth.holdRefresh = true
            let logs = (1...5).map { EventLog(auth.protected("doomed-\($0)")) }
            try await server.waitForArrivals(at: "refresh", count: 1)
            try await auth.waitUntilWaiting(5)

            server.release("refresh")

            for log in logs {
                let error = try #require(try await log.failure() as? BaseServerError)
                #expect(error.code == .tokenRefreshFailed)
                #expect(error.underlyingCode == .unauthorized)
                #expect((error.underlyingError as? BaseServerError)?.statusCode == 401)
            }
            let expiries = await auth.sessionExpiries()
            #expect(expiries.map(\.code) == [.tokenRefreshFailed])
            #expect(server.auth.refreshCalls == 1)
            server.auth.refreshShouldFail = false
            #expect(try await auth.protected("later").value.token == "token-2")
            #expect(server.auth.refreshCalls == 2)
            #expect(await auth.sessionExpiries().count == 1)
        }
    }

    @Test func rejectionArrivingAfterTheRefreshFailedSharesThatFailureWithoutRefreshingAgain() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            server.auth.refreshShouldFail = true
            let slow = EventLog(auth.protected("slow", path: "/protected-after/late/slow"))
            try await server.waitForArrivals(at: "late", count: 1)
            server.auth.expireAccessToken()
            let first = try #require(try await EventLog(auth.protected("first")).failure() as? BaseServerError)
            #expect(first.code == .tokenRefreshFailed)

            server.release("late")

            let late = try #require(try await slow.failure() as? BaseServerError)
            #expect(late.code == .tokenRefreshFailed)
            #expect(server.auth.refreshCalls == 1)
            #expect(await auth.sessionExpiries().count == 1)
        }
    }

    @Test func refreshRequestThatForgetsToOptOutStillSkipsItsManager() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(
                server: server,
                refresher: { configuration, now in
                    ClosureTokenRefresher { tokens in
                        // requiresAuthorization stays true
                        let request = TestRequest<RefreshReply>(configuration: configuration) {
                            ServerRequest(
                                method: .post, baseUrl: server.baseURL, relativeUrl: "/auth/refresh",
                                parameters: .jsonObject(["refreshToken": .string(tokens.refreshToken ?? "")]))
                        }
                        let reply = try await request.performAsync()
                        return AuthTokens(
                            accessToken: reply.accessToken, refreshToken: reply.refreshToken,
                            expiresIn: reply.expiresIn, now: now.now)
                    }
                }, options: { $0.refreshTimeout = .seconds(10) })
            server.auth.expireAccessToken()
            server.auth.refreshShouldFail = true

            let error = try #require(try await EventLog(auth.protected("first")).failure() as? BaseServerError)

            #expect(error.code == .tokenRefreshFailed)
            #expect(error.underlyingCode == .unauthorized)
            #expect(server.auth.refreshCalls == 1)
            server.auth.refreshShouldFail = false
            #expect(try await auth.protected("second").value.token == "token-2")
        }
    }

    @Test func cancellingAWaitingRequestRemovesItFromTheQueueAndLeavesTheOthers() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            server.auth.expireAccessToken()
            server.auth.holdRefresh = true
            let first = EventLog(auth.protected("first"))
            try await server.waitForArrivals(at: "refresh", count: 1)
            let doomed = auth.protected("cancelled")
            let doomedLog = EventLog(doomed)
            let other = EventLog(auth.protected("other"))
            try await auth.waitUntilWaiting(3)

            doomed.cancel()

            #expect(auth.manager.waitingCount == 2)
            guard case .cancel = try await doomedLog.waitForTerminal() else {
                Issue.record("expected cancel")
                return
            }
            server.release("refresh")
            #expect(try await first.success().token == "token-2")
            #expect(try await other.success().token == "token-2")
            await drain(auth.callbackQueue)
            #expect(doomedLog.names == ["cancel"])
            #expect(server.hits(path: "/protected/cancelled") == 0)
            #expect(auth.configuration.taskPool.isEmpty)
        }
    }
}
