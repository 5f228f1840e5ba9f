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

/// `ANY /flaky/:key`: fails a given number of times, then answers.
private struct FlakyReply: Decodable, Sendable {
    let key: String
    let attempt: Int
}

/// Shows a request retried after two 503s (with `Retry-After` and back-off), every stage seen
/// by an event monitor, and the per-host metrics a built-in monitor collects.
func runRetryDemo(server: TestServer) async throws {
    section("Retry with back-off and Retry-After, watched by event monitors")
    let metrics = HostMetricsMonitor()
    var configuration = NetworkConfiguration.default
    configuration.retryPolicy = RetryPolicy(baseDelay: .milliseconds(50), maximumRetryAfter: .milliseconds(200))
    configuration.monitors = [metrics, PrintingMonitor()]
    configuration.logger = PrintNetworkLogger()

    let reply = try await GetRequest<FlakyReply>(
        server.baseURL, "/flaky/demo?failures=2&retryAfter=1", configuration: configuration
    ).performAsync()
    print("answered on attempt \(reply.attempt); the server saw \(server.hits(path: "/flaky/demo")) requests")

    for _ in 1...5 {
        _ = try await GetRequest<FlakyReply>(server.baseURL, "/flaky/steady?failures=0", configuration: configuration)
            .performAsync()
    }
    await withCheckedContinuation { continuation in NetworkMonitorQueue.shared.async { continuation.resume() } }
    for (host, stats) in metrics.snapshot().sorted(by: { $0.key < $1.key }) {
        print(
            "metrics for \(host): \(stats.requests) requests, \(stats.errors) errors, "
                + "p50 \(stats.p50.formatted(.units(allowed: [.milliseconds]))), "
                + "p99 \(stats.p99.formatted(.units(allowed: [.milliseconds])))")
    }
}

/// Prints the retries and the per-stage time of each finished request.
private struct PrintingMonitor: NetworkEventMonitor {
    func request(_ request: MonitoredRequest, willRetry retry: MonitoredRetry) {
        print(
            "monitor: \(request.id) will make attempt \(retry.attempt) of \(retry.maximumAttempts) in \(retry.delay) (\(retry.reason))"
        )
    }

    func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics) {
        guard metrics.attempts > 1 else { return }
        let stages = metrics.stages.map { "\($0.stage) \($0.duration.formatted(.units(allowed: [.milliseconds])))" }
        print("monitor: \(request.id) finished after \(metrics.attempts) attempts; " + stages.joined(separator: ", "))
    }
}
