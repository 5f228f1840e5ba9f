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

/// What is stored and under which key: HTTP's rules on the real server.
@Suite(.timeLimit(.minutes(3))) struct CacheStorageRulesTests {
    @Test func noStoreResponseIsNeverCached() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let adapter = DiskCacheAdapter(directory: directory)
                let configuration = cacheConfiguration(adapter)
                let request = server.request("/cache/no-store", .firstCacheThenRefreshFromServer)
                _ = try await request.perform(Counter.self, configuration).log.success()

                let (_, log) = request.perform(Counter.self, configuration)
                let second = try await log.success()

                await drain(configuration.callbackQueue)
                #expect(log.names == ["success", "completed"])
                #expect(second.value == 2)
                #expect(
                    await adapter.load(
                        CacheKey(method: .get, url: server.baseURL.appendingPathComponent("cache/no-store"))) == nil)
            }
        }
    }

    @Test func requestWithNoStoreIsNotCached() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                _ = try await server.request(
                    "/counter/request-no-store", .serverOnly, headers: ["Cache-Control": "no-store"]
                )
                .perform(Counter.self, configuration).log.success()

                let error = try await server.request("/counter/request-no-store", .cacheOnly).perform(
                    Counter.self, configuration
                ).log.failure()

                #expect((error as? BaseServerError)?.code == .cacheMiss)
            }
        }
    }

    @Test func postIsNeverCachedNorReadFromTheCache() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                let post = server.request("/echo/post-cache", .firstCacheThenRefreshFromServer, method: .post)
                _ = try await post.perform(JSON.self, configuration).log.success()

                let (_, log) = post.perform(JSON.self, configuration)
                _ = try await log.success()
                let miss = try await server.request("/echo/post-cache", .cacheOnly, method: .post).perform(
                    JSON.self, configuration
                ).log.failure()

                await drain(configuration.callbackQueue)
                #expect(log.names == ["success", "completed"])
                #expect(server.hits("POST", "/echo/post-cache") == 2)
                #expect((miss as? BaseServerError)?.code == .cacheMiss)
            }
        }
    }

    @Test func errorResponsesAreNeverCached() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                _ = try await server.request("/cache/outage/error", .serverOnly, headers: ["X-Outage": "1"])
                    .perform(Counter.self, configuration).log.failure()

                let error = try await server.request("/cache/outage/error", .cacheOnly).perform(
                    Counter.self, configuration
                ).log.failure()

                #expect((error as? BaseServerError)?.code == .cacheMiss)
            }
        }
    }

    @Test func bodyThatFailsToMapIsNeverCached() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                let mappingError = try await server.request("/malformed", .serverOnly).perform(
                    Counter.self, configuration
                ).log.failure()

                let error = try await server.request("/malformed", .cacheOnly).perform(Counter.self, configuration).log
                    .failure()

                #expect((mappingError as? BaseServerError)?.code == .cantMapping)
                #expect((error as? BaseServerError)?.code == .cacheMiss)
            }
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func queryIsPartOfTheKey(_ kind: AdapterKind) async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(kind.make(directory))
                _ = try await server.request("/counter/query?page=1", .serverOnly).perform(Counter.self, configuration)
                    .log.success()

                let other = try await server.request("/counter/query?page=2", .cacheOnly).perform(
                    Counter.self, configuration
                ).log.failure()
                let same = try await server.request("/counter/query?page=1", .cacheOnly).perform(
                    Counter.self, configuration
                ).log.success()

                #expect((other as? BaseServerError)?.code == .cacheMiss)
                #expect(same.value == 1)
            }
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func headAndGetAreSeparateEntries(_ kind: AdapterKind) async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(kind.make(directory))
                _ = try await server.request("/counter/head", .serverOnly, method: .head).perform(
                    EmptyResponse.self, configuration
                ).log.success()

                let get = try await server.request("/counter/head", .cacheOnly).perform(Counter.self, configuration).log
                    .failure()
                let head = try await server.request("/counter/head", .cacheOnly, method: .head).perform(
                    EmptyResponse.self, configuration
                ).log.success()

                #expect((get as? BaseServerError)?.code == .cacheMiss)
                #expect(head == EmptyResponse())
            }
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func varyKeepsOneEntryPerValueOfTheNamedHeader(_ kind: AdapterKind) async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(kind.make(directory))
                for language in ["en", "fr"] {
                    _ = try await server.request("/cache/vary", .serverOnly, headers: ["Accept-Language": language])
                        .perform(Localized.self, configuration).log.success()
                }

                let english = try await server.request("/cache/vary", .cacheOnly, headers: ["Accept-Language": "en"])
                    .perform(Localized.self, configuration).log.success()
                let french = try await server.request("/cache/vary", .cacheOnly, headers: ["Accept-Language": "fr"])
                    .perform(Localized.self, configuration).log.success()
                let german = try await server.request("/cache/vary", .cacheOnly, headers: ["Accept-Language": "de"])
                    .perform(Localized.self, configuration).log.failure()

                #expect(english == Localized(language: "en", value: 1))
                #expect(french == Localized(language: "fr", value: 2))
                #expect((german as? BaseServerError)?.code == .cacheMiss)
            }
        }
    }

    @Test func varyHeaderSetByAPreparatorIsPartOfTheKey() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let language = Locked("en")
                let configuration = testConfiguration {
                    $0.cacheAdapter = DiskCacheAdapter(directory: directory)
                    $0.preparators.append(
                        ClosurePreparator { request in
                            var request = request
                            request.headers["Accept-Language"] = language.withLock { $0 }
                            return request
                        })
                }
                _ = try await server.request("/cache/vary", .serverOnly).perform(Localized.self, configuration).log
                    .success()

                language.withLock { $0 = "fr" }
                let error = try await server.request("/cache/vary", .cacheOnly).perform(Localized.self, configuration)
                    .log.failure()

                #expect((error as? BaseServerError)?.code == .cacheMiss)
            }
        }
    }
}
