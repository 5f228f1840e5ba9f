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

/// HTTP freshness (RFC 9111) against the loopback server, with a manual clock.
@Suite(.timeLimit(.minutes(3))) struct FreshnessTests {
    @Test(arguments: AdapterKind.allCases)
    func freshEntryAnswersWithoutReachingTheServer(_ kind: AdapterKind) async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let clock = wallClock()
                let configuration = freshnessConfiguration(kind.make(directory), clock: clock)
                let request = server.request("/cache/fresh/max-age?cc=max-age%3D100", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()
                clock.advance(by: .seconds(90))

                let (context, log) = request.perform(Counter.self, configuration)
                let cached = try await log.success()

                #expect(cached.value == 1)
                #expect(context.isFromCache)
                #expect(server.hits("GET", "/cache/fresh/max-age") == 1)
            }
        }
    }

    @Test func expiredEntryIsRevalidatedAndA304DeliversItAndMakesItFreshAgain() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let clock = wallClock()
                let logger = RecordingLogger()
                let configuration = freshnessConfiguration(
                    DiskCacheAdapter(directory: directory), clock: clock, logger: logger)
                let request = server.request("/cache/fresh/expiry?cc=max-age%3D100&etag=1", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()
                clock.advance(by: .seconds(101))

                let (context, log) = request.perform(Counter.self, configuration)
                let revalidated = try await log.success()
                let again = try await request.perform(Counter.self, configuration).log.success()

                #expect(revalidated.value == 1)
                #expect(!context.isFromCache)
                #expect(logger.statuses == [200, 304])
                #expect(logger.requestHeaders.last?["if-none-match"] == "\"expiry-v1\"")
                #expect(again.value == 1)
                #expect(server.hits("GET", "/cache/fresh/expiry") == 2)
            }
        }
    }

    @Test func noCacheResponseIsRevalidatedOnEveryRequest() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let logger = RecordingLogger()
                let configuration = freshnessConfiguration(
                    DiskCacheAdapter(directory: directory), clock: wallClock(), logger: logger)
                let request = server.request(
                    "/cache/fresh/no-cache?cc=no-cache,max-age%3D100&etag=1", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()

                let first = try await request.perform(Counter.self, configuration).log.success()
                let second = try await request.perform(Counter.self, configuration).log.success()

                #expect(first.value == 1)
                #expect(second.value == 1)
                #expect(logger.statuses == [200, 304, 304])
            }
        }
    }

    @Test(arguments: ["no-cache", "max-age=0", "NO-CACHE"])
    func requestCacheControlForcesANetworkCallDespiteAFreshEntry(_ directive: String) async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: wallClock())
                let path = "/cache/fresh/request-\(directive.prefix(6))?cc=max-age%3D100"
                _ = try await server.request(path, .cacheIfFreshElseServer).perform(Counter.self, configuration).log
                    .success()

                let (context, log) = server.request(
                    path, .cacheIfFreshElseServer, headers: ["Cache-Control": directive]
                )
                .perform(Counter.self, configuration)
                let fresh = try await log.success()

                #expect(fresh.value == 2)
                #expect(!context.isFromCache)
            }
        }
    }

    @Test func mustRevalidateEntryFallsBackWhileFreshButFailsOnceStaleWithTheServerDown() async throws {
        try await withTemporaryDirectory { directory in
            let clock = wallClock()
            let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: clock)
            let server = try await TestServer.start()
            let request = server.request(
                "/cache/fresh/must-revalidate?cc=max-age%3D100,must-revalidate", .serverIfFailReadFromCache)
            _ = try await request.perform(Counter.self, configuration).log.success()
            await server.stop()

            let (whileFresh, freshLog) = request.perform(Counter.self, configuration)
            let fallback = try await freshLog.success()
            clock.advance(by: .seconds(101))
            let error = try await request.perform(Counter.self, configuration).log.failure()

            #expect(fallback.value == 1)
            #expect(whileFresh.isFromCache)
            #expect((error as? BaseServerError)?.code == .cannotConnect)
        }
    }

    @Test func staleWhileRevalidateAnswersStaleAtOnceAndTheNextRequestGetsTheRevalidatedAnswer() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let clock = wallClock()
                let adapter = SaveSignalingAdapter(DiskCacheAdapter(directory: directory))
                let configuration = freshnessConfiguration(adapter, clock: clock)
                let request = server.request(
                    "/cache/fresh/swr?cc=max-age%3D10,stale-while-revalidate%3D100", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()
                clock.advance(by: .seconds(20))

                let (staleContext, staleLog) = request.perform(Counter.self, configuration)
                let stale = try await staleLog.success()
                try await adapter.waitForSavedCounter(2)
                let (freshContext, freshLog) = request.perform(Counter.self, configuration)
                let fresh = try await freshLog.success()

                #expect(stale.value == 1)
                #expect(staleContext.isFromCache)
                #expect(fresh.value == 2)
                #expect(freshContext.isFromCache)
                #expect(server.hits("GET", "/cache/fresh/swr") == 2)
            }
        }
    }

    @Test func staleBeyondTheStaleWhileRevalidateWindowWaitsForTheServer() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let clock = wallClock()
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: clock)
                let request = server.request(
                    "/cache/fresh/swr-past?cc=max-age%3D10,stale-while-revalidate%3D100", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()
                clock.advance(by: .seconds(200))

                let (context, log) = request.perform(Counter.self, configuration)
                let fresh = try await log.success()

                #expect(fresh.value == 2)
                #expect(!context.isFromCache)
            }
        }
    }

    @Test func staleIfErrorServesTheEntryOnA5xxInsideTheWindowAndTheErrorOutsideIt() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let clock = wallClock()
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: clock)
                let path = "/cache/fresh/sie?cc=max-age%3D10,stale-if-error%3D100"
                _ = try await server.request(path, .cacheIfFreshElseServer).perform(Counter.self, configuration).log
                    .success()
                let failing = server.request(path, .cacheIfFreshElseServer, headers: ["X-Fail": "503"])
                clock.advance(by: .seconds(50))

                let (insideContext, insideLog) = failing.perform(Counter.self, configuration)
                let inside = try await insideLog.success()
                clock.advance(by: .seconds(70))
                let outside = try await failing.perform(Counter.self, configuration).log.failure()

                #expect(inside.value == 1)
                #expect(insideContext.isFromCache)
                #expect((outside as? BaseServerError)?.statusCode == 503)
                #expect(server.hits("GET", "/cache/fresh/sie") == 3)
            }
        }
    }

    @Test func staleIfErrorServesTheEntryWhenTheServerCannotBeReached() async throws {
        try await withTemporaryDirectory { directory in
            let clock = wallClock()
            let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: clock)
            let server = try await TestServer.start()
            let request = server.request(
                "/cache/fresh/sie-down?cc=max-age%3D10,stale-if-error%3D100", .cacheIfFreshElseServer)
            _ = try await request.perform(Counter.self, configuration).log.success()
            await server.stop()
            clock.advance(by: .seconds(50))

            let (context, log) = request.perform(Counter.self, configuration)
            let stale = try await log.success()

            #expect(stale.value == 1)
            #expect(context.isFromCache)
        }
    }

    @Test func ageHeaderCountsTowardsTheEntrysAge() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let clock = wallClock()
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: clock)
                let request = server.request("/cache/fresh/age?cc=max-age%3D100&age=60", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()

                clock.advance(by: .seconds(30))
                let stillFresh = try await request.perform(Counter.self, configuration).log.success()
                clock.advance(by: .seconds(15))
                let expired = try await request.perform(Counter.self, configuration).log.success()

                #expect(stillFresh.value == 1)
                #expect(expired.value == 2)
            }
        }
    }

    @Test func dateHeaderBehindTheClientsClockCountsTowardsTheEntrysAge() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                // The client's clock is 200 s ahead of the server's Date: the entry is ~200 s old when stored.
                let clock = wallClock(ahead: 200)
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: clock)
                let request = server.request("/cache/fresh/date?cc=max-age%3D300", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()

                clock.advance(by: .seconds(50))
                let stillFresh = try await request.perform(Counter.self, configuration).log.success()
                clock.advance(by: .seconds(80))
                let expired = try await request.perform(Counter.self, configuration).log.success()

                #expect(stillFresh.value == 1)
                #expect(expired.value == 2)
            }
        }
    }

    @Test func expiresHeaderGivesTheLifetimeCountedFromDate() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let clock = wallClock()
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: clock)
                let expires = Int(Date().timeIntervalSince1970) + 100  // 100 s after the server's Date
                let request = server.request("/cache/fresh/expires?expires=\(expires)", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()

                clock.advance(by: .seconds(80))
                let stillFresh = try await request.perform(Counter.self, configuration).log.success()
                clock.advance(by: .seconds(30))
                let expired = try await request.perform(Counter.self, configuration).log.success()

                #expect(stillFresh.value == 1)
                #expect(expired.value == 2)
            }
        }
    }

    @Test func responseWithoutFreshnessInformationIsNeverFreshWithoutTheHeuristic() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: wallClock())
                let request = server.request("/cache/fresh/no-lifetime", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()

                let second = try await request.perform(Counter.self, configuration).log.success()

                #expect(second.value == 2)
            }
        }
    }

    @Test func firstCacheThenRefreshStillAsksTheServerWhenTheEntryIsFresh() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: wallClock())
                let request = server.request(
                    "/cache/fresh/first-cache?cc=max-age%3D100", .firstCacheThenRefreshFromServer)
                _ = try await request.perform(Counter.self, configuration).log.success()

                let (_, log) = request.perform(Counter.self, configuration)
                let fresh = try await log.success()

                await drain(configuration.callbackQueue)
                #expect(log.names == ["cache", "success", "completed"])
                #expect(fresh.value == 2)
            }
        }
    }

    @Test func serverIfFailStillAsksTheServerWhenTheEntryIsFresh() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: wallClock())
                let request = server.request("/cache/fresh/server-if-fail?cc=max-age%3D100", .serverIfFailReadFromCache)
                _ = try await request.perform(Counter.self, configuration).log.success()

                let (context, log) = request.perform(Counter.self, configuration)
                let fresh = try await log.success()

                #expect(fresh.value == 2)
                #expect(!context.isFromCache)
            }
        }
    }
}

/// What monitors see of freshness.
@Suite(.timeLimit(.minutes(3))) struct FreshnessMonitoringTests {
    @Test func freshAnswerGoesStartCacheHitDecodeFinishWithoutSending() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let monitor = RecordingMonitor()
                var configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: wallClock())
                let request = server.request("/cache/fresh/monitored?cc=max-age%3D100", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()
                configuration.monitors = [monitor]

                _ = try await request.perform(Counter.self, configuration).log.success()

                #expect(
                    try await monitor.events() == [
                        "start GET", "cache hit", "decode Counter", "finish success from cache attempts 0",
                    ])
            }
        }
    }

    @Test func staleIfErrorAnswerIsReportedAsAMissThenAFallback() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let monitor = RecordingMonitor()
                let clock = wallClock()
                var configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: clock)
                let path = "/cache/fresh/monitored-sie?cc=max-age%3D10,stale-if-error%3D100"
                _ = try await server.request(path, .cacheIfFreshElseServer).perform(Counter.self, configuration).log
                    .success()
                configuration.monitors = [monitor]
                clock.advance(by: .seconds(50))

                _ = try await server.request(path, .cacheIfFreshElseServer, headers: ["X-Fail": "503"])
                    .perform(Counter.self, configuration).log.success()

                let events = try await monitor.events()
                #expect(events.contains("cache miss"))
                #expect(events.contains("cache fallback"))
                #expect(events.last == "finish success from cache attempts 1")
            }
        }
    }
}
