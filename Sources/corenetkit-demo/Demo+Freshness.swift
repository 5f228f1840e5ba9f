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

/// `GET /cache/fresh/:key`: a value the server increments on every answered hit.
private struct FreshCounter: Decodable, Sendable {
    let key: String
    let value: Int
}

/// HTTP freshness: a response with `Cache-Control: max-age=60` answers from the cache, without a
/// network call, until it expires; the demo moves a manual clock instead of waiting a minute.
func runFreshnessDemo(server: TestServer) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "corenetkit-demo-fresh-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let clock = ManualClock(startDate: Date())
    var configuration = NetworkConfiguration.default
    configuration.cacheAdapter = DiskCacheAdapter(directory: directory)
    configuration.clock = clock
    let path = "/cache/fresh/catalog?cc=max-age%3D60"

    section("Caching: HTTP freshness (cacheIfFreshElseServer, Cache-Control: max-age=60)")
    for step in ["first request", "10 s later", "61 s later (expired)"] {
        if step.hasPrefix("10") { clock.advance(by: .seconds(10)) }
        if step.hasPrefix("61") { clock.advance(by: .seconds(51)) }
        let context = GetRequest<FreshCounter>(
            server.baseURL, path, .cacheIfFreshElseServer, configuration: configuration
        ).perform()
        let counter = try await context.value
        let source = context.isFromCache ? "the cache, no network call" : "the server"
        print(
            "  \(step): catalog = \(counter.value) from \(source); "
                + "server hits so far: \(server.hits("GET", "/cache/fresh/catalog"))")
    }
}
