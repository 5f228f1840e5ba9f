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

/// The cache stage runs before the access-token stage: a cached answer never waits for a
/// token or a refresh, and a refresh that cannot reach the server falls back to the cache.
@Suite(.timeLimit(.minutes(3))) struct CacheBeforeTokenTests {
    @Test func firstCacheThenRefreshDeliversTheCachedModelWhileATokenRefreshIsHeld() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let auth = AuthFixture(server: server)
                var configuration = auth.configuration
                configuration.cacheAdapter = DiskCacheAdapter(directory: directory)
                let request = server.request("/protected/cached-first", .firstCacheThenRefreshFromServer)
                let seeded = try await request.perform(ProtectedReply.self, configuration).log.success()
                server.auth.expireAccessToken()
                server.auth.holdRefresh = true
                let trigger = EventLog(auth.protected("trigger"))
                try await server.waitForArrivals(at: "refresh", count: 1)

                let (_, log) = request.perform(ProtectedReply.self, configuration)
                let cached = try await log.cached()

                #expect(cached == seeded)
                #expect(log.names == ["cache"])
                #expect(auth.manager.isRefreshing)
                server.release("refresh")
                #expect(try await log.success().token == "token-2")
                #expect(try await trigger.success().token == "token-2")
            }
        }
    }

    @Test func cacheOnlyAnswersWithoutWaitingForAHeldRefresh() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let auth = AuthFixture(server: server)
                var configuration = auth.configuration
                configuration.cacheAdapter = DiskCacheAdapter(directory: directory)
                let seeded = try await server.request("/protected/cached-only", .serverOnly)
                    .perform(ProtectedReply.self, configuration).log.success()
                server.auth.expireAccessToken()
                server.auth.holdRefresh = true
                let trigger = EventLog(auth.protected("trigger"))
                try await server.waitForArrivals(at: "refresh", count: 1)

                let (context, log) = server.request("/protected/cached-only", .cacheOnly)
                    .perform(ProtectedReply.self, configuration)
                let answer = try await log.success()

                #expect(answer == seeded)
                #expect(context.isFromCache)
                #expect(auth.manager.isRefreshing)
                server.release("refresh")
                _ = try await trigger.success()
            }
        }
    }

    @Test func serverIfFailWithAnExpiredTokenAndTheServerGoneDeliversTheCachedModel() async throws {
        try await withTemporaryDirectory { directory in
            let server = try await TestServer.start()
            let auth = AuthFixture(server: server)
            var configuration = auth.configuration
            configuration.cacheAdapter = DiskCacheAdapter(directory: directory)
            let request = server.request("/protected/offline", .serverIfFailReadFromCache)
            let stored = try await request.perform(ProtectedReply.self, configuration).log.success()
            auth.manager.setTokens(
                AuthTokens(accessToken: "token-1", refreshToken: "refresh-1", expiresIn: 60, now: auth.now.now))
            auth.now.advance(by: 120)
            await server.stop()

            let (context, log) = request.perform(ProtectedReply.self, configuration)
            let fallback = try await log.success()

            #expect(fallback == stored)
            #expect(context.isFromCache)
            #expect(await auth.sessionExpiries().isEmpty)
        }
    }

    @Test func serverIfFailWithAnExpiredTokenAndTheServerGoneFailsWithTheRefreshErrorWhenNothingIsCached()
        async throws
    {
        try await withTemporaryDirectory { directory in
            let server = try await TestServer.start()
            let auth = AuthFixture(server: server)
            var configuration = auth.configuration
            configuration.cacheAdapter = DiskCacheAdapter(directory: directory)
            auth.manager.setTokens(
                AuthTokens(accessToken: "token-1", refreshToken: "refresh-1", expiresIn: 60, now: auth.now.now))
            auth.now.advance(by: 120)
            await server.stop()

            let (_, log) = server.request("/protected/never-cached", .serverIfFailReadFromCache)
                .perform(ProtectedReply.self, configuration)
            let error = try #require(try await log.failure() as? BaseServerError)

            #expect(error.code == .tokenRefreshFailed)
            #expect(error.underlyingCode == .cannotConnect)
        }
    }
}
