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

/// Limits, timing, triggers, opting out and redirects of the token refresh: behaviours 6, 7, 9
/// and 10 of issue 4, against the loopback server.
@Suite(.timeLimit(.minutes(3))) struct AccessSafeRequestManagerLimitTests {
    @Test func sixthRefreshWithinThirtySecondsFailsWithExcessiveRefreshUntilTheWindowHasPassed() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            for round in 1...5 {
                server.auth.expireAccessToken()
                #expect(try await auth.protected("round-\(round)").value.token == "token-\(round + 1)")
            }
            server.auth.expireAccessToken()

            let error = try #require(try await EventLog(auth.protected("sixth")).failure() as? BaseServerError)

            #expect(error.code == .excessiveRefresh)
            #expect(server.auth.refreshCalls == 5)
            auth.now.advance(by: 30)
            #expect(try await auth.protected("after-window").value.token == "token-7")
            #expect(server.auth.refreshCalls == 6)
        }
    }

    @Test func refreshLimitAndWindowAreConfigurable() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(
                server: server,
                options: {
                    $0.maxRefreshes = 1
                    $0.refreshWindow = .seconds(300)
                })
            server.auth.expireAccessToken()
            #expect(try await auth.protected("first").value.token == "token-2")
            server.auth.expireAccessToken()

            let error = try #require(try await EventLog(auth.protected("second")).failure() as? BaseServerError)

            #expect(error.code == .excessiveRefresh)
            auth.now.advance(by: 299)
            #expect(try await EventLog(auth.protected("still-inside")).failure() as? BaseServerError != nil)
            auth.now.advance(by: 1)
            #expect(try await auth.protected("outside").value.token == "token-3")
            #expect(server.auth.refreshCalls == 2)
        }
    }

    enum SynchronousStyle: CaseIterable, Sendable { case completionHandlerCalledInline, asyncClosureThatNeverSuspends }

    @Test(arguments: SynchronousStyle.allCases)
    func refresherThatCompletesSynchronouslyDoesNotDeadlock(style: SynchronousStyle) async throws {
        try await withTestServer { server in
            let calls = Locked(0)
            let fresh = AuthTokens(accessToken: "token-1", refreshToken: "refresh-1")
            let auth = AuthFixture(
                server: server, tokens: AuthTokens(accessToken: "stale", refreshToken: "refresh-0"),
                refresher: { _, _ in
                    switch style {
                    case .completionHandlerCalledInline:
                        ClosureTokenRefresher(completion: { _, completion in
                            calls.withLock { $0 += 1 }
                            completion(.success(fresh))
                        })
                    case .asyncClosureThatNeverSuspends:
                        ClosureTokenRefresher { _ in
                            calls.withLock { $0 += 1 }
                            return fresh
                        }
                    }
                })

            let logs = (1...10).map { EventLog(auth.protected("sync-\($0)")) }

            for log in logs {
                let reply = try await log.success()
                #expect(reply.token == "token-1")
            }
            #expect(calls.withLock { $0 } == 1)
            #expect(!auth.manager.isRefreshing)
        }
    }

    @Test func refreshHangingPastItsTimeoutFailsTheWaitingRequestsWithoutEndingTheSession() async throws {
        try await withTestServer { server in
            let clock = ManualClock()
            let auth = AuthFixture(
                server: server,
                options: {
                    $0.refreshTimeout = .seconds(30)
                    $0.clock = clock
                })
            server.auth.expireAccessToken()
            server.auth.holdRefresh = true
            let logs = (1...3).map { EventLog(auth.protected("hung-\($0)")) }
            try await auth.waitUntilWaiting(3)
            try await withTimeout(30, "the refresh timer") { await clock.waitForSleepers(1) }

            clock.advance(by: .seconds(31))

            for log in logs {
                let error = try #require(try await log.failure() as? BaseServerError)
                #expect(error.code == .tokenRefreshFailed)
                #expect(error.underlyingCode == .timeout)
            }
            #expect(!auth.manager.isRefreshing)
            #expect(await auth.sessionExpiries().isEmpty)
            server.release("refresh")
        }
    }

    @Test func requestCloseToTheKnownExpiryRefreshesFirstOnceForManyRequests() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server, tokens: nil)
            let expiresAt = auth.now.now.addingTimeInterval(60)
            auth.manager.setTokens(AuthTokens(accessToken: "token-1", refreshToken: "refresh-1", expiresAt: expiresAt))
            #expect(try await auth.protected("early").value.token == "token-1")
            #expect(server.auth.refreshCalls == 0)
            auth.now.advance(by: 31)
            server.auth.holdRefresh = true

            let logs = (1...20).map { EventLog(auth.protected("late-\($0)")) }
            try await server.waitForArrivals(at: "refresh", count: 1)
            try await auth.waitUntilWaiting(20)
            server.release("refresh")

            for log in logs { #expect(try await log.success().token == "token-2") }
            #expect(server.auth.refreshCalls == 1)
            #expect(server.auth.tokensSeen() == ["token-1"] + Array(repeating: "token-2", count: 20))
        }
    }

    @Test func tokensSetWithoutATimeExpireCountingFromTheManagersClock() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server, tokens: nil)
            auth.now.advance(by: 1_000)

            auth.manager.setTokens(AuthTokens(accessToken: "token-1", refreshToken: "refresh-1", expiresIn: 60))
            #expect(auth.manager.tokens?.expiresAt == auth.now.now.addingTimeInterval(60))
            let early = try await auth.protected("early").value
            auth.now.advance(by: 31)

            let late = try await auth.protected("late").value

            #expect(early.token == "token-1")
            #expect(late.token == "token-2")
            #expect(server.auth.refreshCalls == 1)
        }
    }

    @Test func refreshedTokensWithoutATimeExpireCountingFromTheirArrival() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(
                server: server,
                refresher: { configuration, now in
                    let endpoint = TestServerRefresher(baseURL: server.baseURL, configuration: configuration, now: now)
                    return ClosureTokenRefresher { tokens in
                        let new = try await endpoint.refresh(tokens)
                        return AuthTokens(accessToken: new.accessToken, refreshToken: new.refreshToken, expiresIn: 90)
                    }
                })
            auth.now.advance(by: 5_000)
            server.auth.expireAccessToken()

            let renewed = try await auth.protected("renewed").value

            #expect(renewed.token == "token-2")
            #expect(auth.manager.tokens?.expiresAt == auth.now.now.addingTimeInterval(90))
        }
    }

    @Test func status403TriggerRefreshesAndReplays() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server, options: { $0.trigger = .status(403) })
            server.auth.rejectionStyle = .status403
            server.auth.expireAccessToken()

            let reply = try await auth.protected("forbidden").value

            #expect(reply.token == "token-2")
            #expect(server.auth.refreshCalls == 1)
        }
    }

    @Test func errorCode5InA200BodyTriggersRefreshAndReplay() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server, options: { $0.trigger = .bodyErrorCode(5) })
            server.auth.rejectionStyle = .bodyErrorCode5
            server.auth.expireAccessToken()

            let reply = try await auth.protected("vk").value

            #expect(reply.token == "token-2")
            #expect(server.auth.refreshCalls == 1)
        }
    }

    @Test func requestThatDoesNotRequireAuthorizationGoesOutWithoutTheTokenAndIsNeverRefreshed() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            let request = TestRequest<ProtectedReply>(configuration: auth.configuration) {
                ServerRequest(
                    method: .get, baseUrl: server.baseURL, relativeUrl: "/protected/public",
                    requiresAuthorization: false)
            }

            let error = try #require(try await EventLog(request.perform()).failure() as? BaseServerError)

            #expect(error.code == .unauthorized)
            #expect(server.auth.tokensSeen() == [""])
            #expect(server.auth.refreshCalls == 0)
        }
    }

    @Test func withoutTokensARequestGoesOutBareAndItsRejectionEndsInUnauthorized() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server, tokens: nil)

            let error = try #require(try await EventLog(auth.protected("anonymous")).failure() as? BaseServerError)

            #expect(error.code == .unauthorized)
            #expect(error.statusCode == 401)
            #expect(server.auth.tokensSeen() == [""])
            #expect(server.auth.refreshCalls == 0)
        }
    }

    @Test func managersTokenFollowsASameOriginRedirect() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            let request = TestRequest<Echo>(configuration: auth.configuration) {
                server.get("/redirect", parameters: .query(["to": "/echo/after"]))
            }

            let echo = try await request.performAsync()

            #expect(echo.path == "/echo/after")
            #expect(echo.headers["authorization"] == "Bearer token-1")
        }
    }

    @Test func managersTokenIsNotSentToAnotherOriginOnARedirect() async throws {
        try await withTestServer { other in
            try await withTestServer { server in
                let auth = AuthFixture(server: server)
                let target = other.baseURL.absoluteString + "/echo/elsewhere"
                let request = TestRequest<Echo>(configuration: auth.configuration) {
                    server.get("/redirect", parameters: .query(["to": .string(target)]))
                }

                let echo = try await request.performAsync()

                #expect(echo.path == "/echo/elsewhere")
                #expect(echo.headers["authorization"] == nil)
                #expect(other.hits("GET", "/echo/elsewhere") == 1)
            }
        }
    }
}
