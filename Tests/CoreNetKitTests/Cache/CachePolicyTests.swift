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

/// The four cache policies against the loopback server, through the real transport.
@Suite(.timeLimit(.minutes(3))) struct CachePolicyTests {
    @Test func firstCacheThenRefreshDeliversTheCachedModelThenTheServersInThatOrder() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                let request = server.request("/counter/first-cache", .firstCacheThenRefreshFromServer)
                _ = try await request.perform(Counter.self, configuration).log.success()

                let (context, log) = request.perform(Counter.self, configuration)
                let fresh = try await log.success()

                await drain(configuration.callbackQueue)
                #expect(log.names == ["cache", "success", "completed"])
                guard case .cache(let cached) = log.all.first else {
                    Issue.record("expected the cached model first")
                    return
                }
                #expect(cached.value == 1)
                #expect(fresh.value == 2)
                #expect(!context.isFromCache)
                #expect(server.hits("GET", "/counter/first-cache") == 2)
            }
        }
    }

    @Test func firstCacheThenRefreshWithoutAnEntryDeliversOnlyTheServersModel() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))

                let (_, log) = server.request("/counter/first-empty", .firstCacheThenRefreshFromServer).perform(
                    Counter.self, configuration)
                let fresh = try await log.success()

                await drain(configuration.callbackQueue)
                #expect(log.names == ["success", "completed"])
                #expect(fresh.value == 1)
            }
        }
    }

    @Test func firstCacheThenRefreshFollowsTheCachedModelWithTheErrorWhenTheServerFails() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                _ = try await server.request("/cache/outage/first-fails", .firstCacheThenRefreshFromServer)
                    .perform(Counter.self, configuration).log.success()

                let (_, log) = server.request(
                    "/cache/outage/first-fails", .firstCacheThenRefreshFromServer, headers: ["X-Outage": "1"]
                )
                .perform(Counter.self, configuration)
                let error = try await log.failure()

                await drain(configuration.callbackQueue)
                #expect(log.names == ["cache", "failure", "completed"])
                #expect((error as? BaseServerError)?.statusCode == 503)
            }
        }
    }

    @Test func cacheOnlyWithoutAnEntryFailsWithCacheMissAndNeverReachesTheServer() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))

                let (_, log) = server.request("/counter/cache-only-miss", .cacheOnly).perform(
                    Counter.self, configuration)
                let error = try await log.failure()

                #expect((error as? BaseServerError)?.code == .cacheMiss)
                #expect(server.totalHits() == 0)
            }
        }
    }

    @Test func cacheOnlyWithoutAnyAdapterFailsWithCacheMiss() async throws {
        try await withTestServer { server in
            let (_, log) = server.request("/counter/no-adapter", .cacheOnly).perform(Counter.self, testConfiguration())

            let error = try await log.failure()

            #expect((error as? BaseServerError)?.code == .cacheMiss)
            #expect(server.totalHits() == 0)
        }
    }

    @Test func cacheOnlyAnswersFromTheCacheMarkedAsFromCacheWithoutTheNetwork() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                _ = try await server.request("/counter/cache-only-hit", .serverOnly).perform(
                    Counter.self, configuration
                ).log.success()

                let (context, log) = server.request("/counter/cache-only-hit", .cacheOnly).perform(
                    Counter.self, configuration)
                let cached = try await log.success()

                #expect(cached.value == 1)
                #expect(context.isFromCache)
                #expect(server.hits("GET", "/counter/cache-only-hit") == 1)
            }
        }
    }

    @Test func serverOnlyNeverReadsTheCacheButStoresEachSuccess() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                _ = try await server.request("/counter/server-only", .serverOnly).perform(Counter.self, configuration)
                    .log.success()

                let (_, log) = server.request("/counter/server-only", .serverOnly).perform(Counter.self, configuration)
                let second = try await log.success()
                let cached = try await server.request("/counter/server-only", .cacheOnly).perform(
                    Counter.self, configuration
                ).log.success()

                await drain(configuration.callbackQueue)
                #expect(log.names == ["success", "completed"])
                #expect(second.value == 2)
                #expect(cached.value == 2)
            }
        }
    }

    @Test func serverIfFailWithTheServerStoppedDeliversTheCachedModelMarkedAsFromCache() async throws {
        try await withTemporaryDirectory { directory in
            let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
            let server = try await TestServer.start()
            let request = server.request("/counter/offline", .serverIfFailReadFromCache)
            let stored = try await request.perform(Counter.self, configuration).log.success()
            await server.stop()

            let (context, log) = request.perform(Counter.self, configuration)
            let fallback = try await log.success()

            await drain(configuration.callbackQueue)
            #expect(fallback == stored)
            #expect(context.isFromCache)
            #expect(log.names == ["success", "completed"])
        }
    }

    @Test func serverIfFailOnA5xxDeliversTheCachedModelMarkedAsFromCache() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                _ = try await server.request("/cache/outage/fallback", .serverIfFailReadFromCache)
                    .perform(Counter.self, configuration).log.success()

                let (context, log) = server.request(
                    "/cache/outage/fallback", .serverIfFailReadFromCache, headers: ["X-Outage": "1"]
                )
                .perform(Counter.self, configuration)
                let fallback = try await log.success()

                #expect(fallback.value == 1)
                #expect(context.isFromCache)
                #expect(server.hits("GET", "/cache/outage/fallback") == 2)
            }
        }
    }

    @Test func serverIfFailOnATimeoutDeliversTheCachedModel() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                server.release("cache-timeout")
                _ = try await server.request("/hold/cache-timeout", .serverIfFailReadFromCache)
                    .perform(JSON.self, configuration).log.success()
                server.close("cache-timeout")

                let (context, log) = server.request("/hold/cache-timeout", .serverIfFailReadFromCache, timeout: 1)
                    .perform(JSON.self, configuration)
                let fallback = try await log.success()

                #expect(fallback["gate"]?.stringValue == "cache-timeout")
                #expect(context.isFromCache)
                #expect(server.arrivals(at: "cache-timeout") == 2)
                server.release("cache-timeout")
            }
        }
    }

    @Test func serverIfFailDeliversTheFreshModelWhenTheServerAnswers() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                let request = server.request("/counter/server-up", .serverIfFailReadFromCache)
                _ = try await request.perform(Counter.self, configuration).log.success()

                let (context, log) = request.perform(Counter.self, configuration)
                let fresh = try await log.success()

                #expect(fresh.value == 2)
                #expect(!context.isFromCache)
            }
        }
    }

    @Test func serverIfFailWithoutAnEntryDeliversTheServersError() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))

                let (_, log) = server.request(
                    "/cache/outage/never-stored", .serverIfFailReadFromCache, headers: ["X-Outage": "1"]
                )
                .perform(Counter.self, configuration)
                let error = try await log.failure()

                #expect((error as? BaseServerError)?.statusCode == 503)
            }
        }
    }

    @Test func isFromCacheCarriesThroughMap() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                _ = try await server.request("/counter/mapped", .serverOnly).perform(Counter.self, configuration).log
                    .success()

                let mapped = server.request("/counter/mapped", .cacheOnly).perform(Counter.self, configuration).context
                    .map { $0.value * 10 }
                let value = try await mapped.value

                #expect(value == 10)
                #expect(mapped.isFromCache)
            }
        }
    }

    @Test func isFromCacheCarriesThroughFlatMapFromTheSecondContext() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                _ = try await server.request("/counter/flat", .serverOnly).perform(Counter.self, configuration).log
                    .success()

                let fromServerThenCache = server.request("/counter/other", .serverOnly)
                    .perform(Counter.self, configuration).context
                    .flatMap { _ in
                        server.request("/counter/flat", .cacheOnly).perform(Counter.self, configuration).context
                    }
                #expect(try await fromServerThenCache.value.value == 1)
                #expect(fromServerThenCache.isFromCache)

                let fromCacheThenServer = server.request("/counter/flat", .cacheOnly)
                    .perform(Counter.self, configuration).context
                    .flatMap { _ in
                        server.request("/counter/other", .serverOnly).perform(Counter.self, configuration).context
                    }
                #expect(try await fromCacheThenServer.value.value == 2)
                #expect(!fromCacheThenServer.isFromCache)
            }
        }
    }
}
