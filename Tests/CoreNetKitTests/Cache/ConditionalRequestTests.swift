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

/// ETag / Last-Modified revalidation with `304 Not Modified`.
@Suite(.timeLimit(.minutes(3))) struct ConditionalRequestTests {
    @Test func notModifiedDeliversTheCachedModelThoughTheBodyWasEmpty() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let logger = RecordingLogger()
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory), logger: logger)
                let request = server.request("/cache/etag/not-modified", .firstCacheThenRefreshFromServer)
                _ = try await request.perform(Versioned.self, configuration).log.success()

                let (context, log) = request.perform(Versioned.self, configuration)
                let model = try await log.success()

                await drain(configuration.callbackQueue)
                #expect(model == Versioned(key: "not-modified", version: 1))
                #expect(logger.statuses == [200, 304])
                #expect(log.names == ["cache", "success", "completed"])
                #expect(!context.isFromCache)
            }
        }
    }

    @Test func revalidationSendsIfNoneMatchAndIfModifiedSinceFromTheStoredEntry() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let logger = RecordingLogger()
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory), logger: logger)
                let request = server.request("/cache/etag/conditional", .serverIfFailReadFromCache)
                _ = try await request.perform(Versioned.self, configuration).log.success()

                _ = try await request.perform(Versioned.self, configuration).log.success()

                let sent = logger.requestHeaders
                #expect(sent.count == 2)
                #expect(sent[0]["if-none-match"] == nil)
                #expect(sent[1]["if-none-match"] == "\"conditional-v1\"")
                #expect(sent[1]["if-modified-since"] == "Mon, 01 Jan 2024 00:00:00 GMT")
            }
        }
    }

    @Test func changedResourceIsDeliveredAndReplacesTheEntry() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let logger = RecordingLogger()
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory), logger: logger)
                let request = server.request("/cache/etag/changed", .firstCacheThenRefreshFromServer)
                _ = try await request.perform(Versioned.self, configuration).log.success()
                server.bumpVersion("changed")

                let fresh = try await request.perform(Versioned.self, configuration).log.success()
                let cached = try await server.request("/cache/etag/changed", .cacheOnly).perform(
                    Versioned.self, configuration
                ).log.success()

                #expect(logger.statuses == [200, 200])
                #expect(fresh.version == 2)
                #expect(cached.version == 2)
            }
        }
    }

    @Test func serverOnlySendsNoConditionalHeaders() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let logger = RecordingLogger()
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory), logger: logger)
                let request = server.request("/cache/etag/server-only", .serverOnly)
                _ = try await request.perform(Versioned.self, configuration).log.success()

                _ = try await request.perform(Versioned.self, configuration).log.success()

                #expect(logger.statuses == [200, 200])
                #expect(logger.requestHeaders.allSatisfy { $0["if-none-match"] == nil })
            }
        }
    }

    @Test func notModifiedHeadersReplaceTheStoredOnesButNotTheBodyOnes() {
        let stored = CachedResponse(
            statusCode: 200,
            headers: ["ETag": "\"a\"", "Cache-Control": "max-age=0", "Content-Length": "12", "X-Kept": "1"],
            body: Data("{\"v\":1}".utf8), url: nil, storedAt: Date(timeIntervalSince1970: 0))
        let later = Date(timeIntervalSince1970: 100)

        let refreshed = stored.revalidated(by: ["Cache-Control": "max-age=60", "Content-Length": "0"], at: later)

        #expect(refreshed.headers["Cache-Control"] == "max-age=60")
        #expect(refreshed.headers["Content-Length"] == "12")
        #expect(refreshed.headers["ETag"] == "\"a\"")
        #expect(refreshed.headers["X-Kept"] == "1")
        #expect(refreshed.body == stored.body)
        #expect(refreshed.storedAt == later)
    }
}
