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

/// A 401 storm: many requests sent with one expired token make one refresh, also when some of
/// their 401s reach the token stage only after that refresh finished. Runs on the suite's
/// transport (URLSession, or AsyncHTTPClient with the trait), 20 times in a row.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RefreshStormTests {
    @Test(arguments: 1...20)
    func fiftyRequestsSentWithOneExpiredTokenMakeOneRefreshAlsoWhenHalfTheir401sAreReadAfterIt(run: Int)
        async throws
    {
        try await withTestServer { server in
            let storm = StormStage(expiredAuthorization: "Bearer token-1", count: 50)
            let auth = AuthFixture(server: server, interceptors: [storm])
            server.auth.expireAccessToken()
            server.auth.holdRefresh = true
            let ids = (1...50).map { "\(run)-\($0)" }
            let logs = ids.map { EventLog(auth.protected($0)) }
            // All 50 are sent with the expired token, and all 50 are answered 401, before the
            // refresh (held at the server) can finish.
            try await withTimeout(30, "50 requests with the expired token") { await storm.allSent.value }
            try await server.waitForArrivals(at: "rejected", count: 50)
            try await server.waitForArrivals(at: "refresh", count: 1)

            server.release("refresh")
            // The even half read their 401 at once: they share the one refresh and replay.
            for index in stride(from: 1, to: 50, by: 2) {
                #expect(try await logs[index].success() == ProtectedReply(id: ids[index], token: "token-2"))
            }
            // The odd half read their 401 only now, after the refresh finished.
            storm.releaseLateRejections()

            for index in stride(from: 0, to: 50, by: 2) {
                #expect(try await logs[index].success() == ProtectedReply(id: ids[index], token: "token-2"))
            }
            #expect(server.auth.refreshCalls == 1)
            let seen = server.auth.tokensSeen()
            #expect(seen.filter { $0 == "token-1" }.count == 50)
            #expect(seen.filter { $0 == "token-2" }.count == 50)
            #expect(await auth.sessionExpiries().isEmpty)
        }
    }
}

/// A user stage (after the access-token stage, right before the transport) that shapes a storm:
/// it holds every request carrying `expiredAuthorization` until `count` of them have arrived, so
/// all go out with that token; and it holds the 401 of every request whose id (`/protected/RUN-N`)
/// ends in an odd `N` until ``releaseLateRejections()``, so the token stage reads those after the
/// refresh.
final class StormStage: Interceptor {
    let allSent = Once<Void>()
    private let late = Once<Void>()
    private let expiredAuthorization: String
    private let count: Int
    private let arrived = Locked(0)

    init(expiredAuthorization: String, count: Int) {
        self.expiredAuthorization = expiredAuthorization
        self.count = count
    }

    func releaseLateRejections() { late.fire(()) }

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        guard request.headers["Authorization"] == expiredAuthorization else { return try await next.proceed(request) }
        let all = arrived.withLock { arrived in
            arrived += 1
            return arrived == count
        }
        if all { allSent.fire(()) }
        await allSent.value
        let response = try await next.proceed(request)
        let number = request.relativeUrl.split(separator: "-").last.flatMap { Int($0) } ?? 0
        if number % 2 == 1, response.statusCode == 401 { await late.value }
        return response
    }
}
