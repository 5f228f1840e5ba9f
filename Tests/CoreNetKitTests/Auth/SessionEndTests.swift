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

@testable import CoreNetKit

/// `onSessionExpired` is the one signal for every way a session ends, once per ending, with the
/// reason in the error's code.
@Suite(.timeLimit(.minutes(3))) struct SessionEndTests {
    @Test func refusingAnExcessiveRefreshEndsTheSessionOnceForAllRefusedRequests() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server, options: { $0.maxRefreshes = 1 })
            server.auth.expireAccessToken()
            _ = try await auth.protected("first").value
            server.auth.expireAccessToken()

            for index in 1...3 {
                let error = try #require(
                    try await EventLog(auth.protected("refused-\(index)")).failure() as? BaseServerError)
                #expect(error.code == .excessiveRefresh)
            }

            let endings = await auth.sessionExpiries()
            #expect(endings.map(\.code) == [.excessiveRefresh])
        }
    }

    @Test func aRenewedTokenRejectedAgainEndsTheSessionOnce() async throws {
        try await withTestServer { server in
            let auth = AuthFixture.rejectingEveryRenewedToken(server: server)
            server.auth.expireAccessToken()

            let logs = (1...3).map { EventLog(auth.protected("again-\($0)")) }
            for log in logs {
                let error = try await log.failure() as? BaseServerError
                #expect(error?.code == .unauthorized)
            }

            #expect(server.auth.refreshCalls == 1)
            #expect(await auth.sessionExpiries().map(\.code) == [.unauthorized])
        }
    }

    @Test func aConnectionProblemNeverEndsTheSession() async throws {
        let server = try await TestServer.start()
        let auth = AuthFixture(server: server)
        auth.manager.setTokens(
            AuthTokens(accessToken: "token-1", refreshToken: "refresh-1", expiresIn: 60, now: auth.now.now))
        auth.now.advance(by: 120)
        await server.stop()

        let error = try #require(try await EventLog(auth.protected("offline")).failure() as? BaseServerError)

        #expect(error.code == .tokenRefreshFailed)
        #expect(await auth.sessionExpiries().isEmpty)
    }
}
