//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Benchmark
import CoreNetKit
import CoreNetKitTestServer
import Foundation

/// Issue 7, items 3–6: the token-refresh storm, paging 10,000 items, a cached page's
/// `onCacheSuccess` latency and the memory of a 100 MB multipart upload.
func registerFeatureBenchmarks() {
    registerRefreshStormBenchmarks()
    registerPaginationBenchmark()
    registerCacheBenchmark()
    registerMultipartBenchmark()
}

// MARK: 401 storm

struct ProtectedReply: Decodable, Sendable {
    let id: String
    let token: String
}
struct RefreshReply: Decodable, Sendable {
    let accessToken: String
    let refreshToken: String
    let expiresIn: Double
}

/// 100 concurrent requests with an expired token (one refresh, every request replayed) against
/// the same 100 with a valid token. `refresh calls` must stay at 1 per iteration.
func registerRefreshStormBenchmarks() {
    let refreshes = BenchmarkMetric.custom("refresh calls", polarity: .prefersSmaller, useScalingFactor: false)
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, refreshes], timeUnits: .milliseconds, warmupIterations: 1,
        maxDuration: .seconds(4), maxIterations: 30)

    for expired in [false, true] {
        let name = expired ? "401 storm: 100 requests, expired token" : "401 storm: 100 requests, valid token"
        Benchmark(name, configuration: configuration) { benchmark in
            let server = try await Fixture.server()
            let manager = AccessSafeRequestManager()
            let network = benchConfiguration(transport: URLSessionTransport()).with { $0.accessManager = manager }
            let baseURL = server.baseURL
            let current = server.auth.currentAccessToken
            manager.configure(
                store: InMemoryTokenStore(
                    AuthTokens(accessToken: current, refreshToken: server.auth.currentRefreshToken)),
                refresher: ClosureTokenRefresher { tokens in
                    let reply = try await BenchRequest<RefreshReply>(configuration: network) {
                        ServerRequest(
                            method: .post, baseUrl: baseURL, relativeUrl: "/auth/refresh",
                            parameters: .jsonObject(["refreshToken": .string(tokens.refreshToken ?? "")]),
                            requiresAuthorization: false)
                    }.performAsync()
                    return AuthTokens(accessToken: reply.accessToken, refreshToken: reply.refreshToken)
                })
            if expired { server.auth.expireAccessToken() }
            let before = server.auth.refreshCalls

            benchmark.startMeasurement()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in 1...100 {
                    group.addTask {
                        blackHole(
                            try await BenchRequest<ProtectedReply>(configuration: network) {
                                ServerRequest(method: .get, baseUrl: baseURL, relativeUrl: "/protected/\(id)")
                            }.performAsync())
                    }
                }
                try await group.waitForAll()
            }
            benchmark.stopMeasurement()
            benchmark.measurement(refreshes, server.auth.refreshCalls - before)
        }
    }
}

extension NetworkConfiguration {
    func with(_ adjust: (inout NetworkConfiguration) -> Void) -> NetworkConfiguration {
        var copy = self
        adjust(&copy)
        return copy
    }
}

// MARK: Pagination

struct Item: Decodable, Sendable {
    let id: Int
    let title: String
}
struct ItemPage: Decodable, Sendable, OffsetPageResponse {
    let items: [Item]
    let total: Int?
}

/// 10,000 items in pages of 100 through `OffsetPaginator.pages`.
func registerPaginationBenchmark() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal], timeUnits: .milliseconds, warmupIterations: 1,
        maxDuration: .seconds(5), maxIterations: 20)
    let network = benchConfiguration(transport: URLSessionTransport())

    Benchmark("Pagination: 10,000 items in pages of 100 (OffsetPaginator)", configuration: configuration) { benchmark in
        let baseURL = try await Fixture.baseURL()
        let paginator = OffsetPaginator<Item>(pageSize: 100, queue: network.callbackQueue) { offset, limit in
            BenchRequest<ItemPage>(configuration: network) {
                ServerRequest(
                    method: .get, baseUrl: baseURL, relativeUrl: "/items",
                    parameters: .query(["offset": .int(offset), "limit": .int(limit), "count": 10_000]))
            }.perform()
        }
        var count = 0
        for try await page in paginator.pages { count += page.items.count }
        precondition(count == 10_000, "paged \(count) items")
    }
}

// MARK: Cache

/// Time from `perform()` to `onCacheSuccess` with a cached 20-item page
/// (`firstCacheThenRefreshFromServer`, `DiskCacheAdapter` with its memory tier).
func registerCacheBenchmark() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 20,
        maxDuration: .seconds(3), maxIterations: 2_000)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corenetkit-bench-cache-\(getpid())")
    let network = benchConfiguration(transport: URLSessionTransport()).with {
        $0.cacheAdapter = DiskCacheAdapter(directory: directory)
    }

    Benchmark("Cache: perform → onCacheSuccess of a cached 20-item page", configuration: configuration) { benchmark in
        let baseURL = try await Fixture.baseURL()
        _ = try await benchPageRequest(
            baseURL: baseURL, configuration: network, cachePolicy: .firstCacheThenRefreshFromServer
        )
        .perform().value  // fills the cache
        benchmark.startMeasurement()
        let context = benchPageRequest(
            baseURL: baseURL, configuration: network, cachePolicy: .firstCacheThenRefreshFromServer
        )
        .perform()
        let cached: UserPage = await withCheckedContinuation { continuation in
            context.onCacheSuccess { continuation.resume(returning: $0) }
        }
        benchmark.stopMeasurement()
        blackHole(cached)
        _ = try await context.value
    }
}

// MARK: Multipart

/// Peak resident memory while uploading a 100 MB file as multipart (streamed from disk).
func registerMultipartBenchmark() {
    let configuration = Benchmark.Configuration(
        metrics: [.peakMemoryResident, .peakMemoryResidentDelta, .wallClock], timeUnits: .milliseconds,
        warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 3)
    let network = benchConfiguration(transport: URLSessionTransport())

    Benchmark(
        "Multipart: upload a 100 MB file", configuration: configuration,
        closure: { benchmark in
            let baseURL = try await Fixture.baseURL()
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "corenetkit-bench-100mb-\(getpid()).bin")
            if !FileManager.default.fileExists(atPath: file.path) {
                _ = FileManager.default.createFile(atPath: file.path, contents: nil)
                let handle = try FileHandle(forWritingTo: file)
                let chunk = Data(repeating: 0x5A, count: 1 << 20)
                for _ in 0..<100 { try handle.write(contentsOf: chunk) }
                try handle.close()
            }
            var form = MultipartData()
            form.append("benchmark", name: "title")
            form.append(fileAt: file, name: "file", filename: "big.bin", mimeType: "application/octet-stream")
            let body = form
            benchmark.startMeasurement()
            let reply = try await BenchRequest<JSON>(configuration: network) {
                ServerRequest(method: .post, baseUrl: baseURL, relativeUrl: "/upload", parameters: .multipart(body))
            }.performAsync()
            benchmark.stopMeasurement()
            blackHole(reply)
        })
}
