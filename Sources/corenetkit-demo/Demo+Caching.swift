//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Foundation

/// `GET /counter/:key`: a value the server increments on every hit, so a cached answer shows.
private struct Counter: Decodable, Sendable {
    let key: String
    let value: Int
}

/// `GET /cache/etag/:key`: a resource with an ETag.
private struct Versioned: Decodable, Sendable {
    let key: String
    let version: Int
}

/// Runs `request`, printing each event as a screen would receive it, and returns when it ends.
private func show<Model: Sendable>(
    _ request: BaseServerRequest<Model>, _ describe: @escaping @Sendable (Model) -> String
) async {
    let context = request.perform()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        context
            .onCacheSuccess { model in print("  onCacheSuccess: \(describe(model))  ← shown at once, from the cache") }
            .onSuccess { model in
                print(
                    "  onSuccess:      \(describe(model))"
                        + (context.isFromCache ? "  ← from the cache: show an \"offline\" banner" : ""))
            }
            .onError { error in print("  onError:        \(error.localizedDescription)") }
            .onCompleted { _ in done.resume() }
    }
}

/// Caching: a cached answer before the fresh one, ETag revalidation, and an offline fallback.
func runCachingDemo(server: TestServer) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "corenetkit-demo-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cache = DiskCacheAdapter(directory: directory)
    var configuration = NetworkConfiguration.default
    configuration.cacheAdapter = cache
    let counter: @Sendable (Counter) -> String = { "\($0.key) = \($0.value)" }

    section("Caching: the cached answer first, then the fresh one (firstCacheThenRefreshFromServer)")
    print("first visit, nothing cached yet:")
    await show(
        GetRequest<Counter>(
            server.baseURL, "/counter/feed", .firstCacheThenRefreshFromServer, configuration: configuration), counter)
    print("second visit:")
    await show(
        GetRequest<Counter>(
            server.baseURL, "/counter/feed", .firstCacheThenRefreshFromServer, configuration: configuration), counter)

    section("Caching: ETag revalidation, 304 Not Modified delivers the cached model")
    var logged = configuration
    logged.logger = PrintNetworkLogger { line in print("  log: \(line)") }
    let versioned: @Sendable (Versioned) -> String = { "\($0.key) v\($0.version)" }
    await show(
        GetRequest<Versioned>(
            server.baseURL, "/cache/etag/profile", .serverIfFailReadFromCache, configuration: logged), versioned)
    await show(
        GetRequest<Versioned>(
            server.baseURL, "/cache/etag/profile", .serverIfFailReadFromCache, configuration: logged), versioned)

    section("Caching: offline fallback (serverIfFailReadFromCache) with the server stopped")
    let origin = try await TestServer.start()
    await show(
        GetRequest<Counter>(
            origin.baseURL, "/counter/news", .serverIfFailReadFromCache, configuration: configuration), counter)
    await origin.stop()
    print("server stopped:")
    await show(
        GetRequest<Counter>(
            origin.baseURL, "/counter/news", .serverIfFailReadFromCache, configuration: configuration), counter)

    section("Caching: logout clears the cache (removeAll)")
    await cache.removeAll()
    await show(
        GetRequest<Counter>(origin.baseURL, "/counter/news", .cacheOnly, configuration: configuration), counter)
}
