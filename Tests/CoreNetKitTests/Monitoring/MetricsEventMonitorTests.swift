//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Metrics
import CoreNetKitTestServer
import Dispatch
import Foundation
import MetricsTestKit
import Testing

@testable import CoreNetKit

/// What ``MetricsEventMonitor`` records, read back from swift-metrics' own test backend.
@Suite(.timeLimit(.minutes(3))) struct MetricsEventMonitorTests {
    @Test func successfulRequestRecordsItsDurationCountBodySizeAndActiveRequests() async throws {
        try await withTestServer { server in
            let metrics = MonitorMetrics()
            let configuration = testConfiguration { $0.monitors = [metrics.monitor] }

            _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()
            await metrics.drain()

            let dimensions = metrics.dimensions(statusClass: "2xx", outcome: "success")
            let timer = try metrics.backend.expectTimer(MetricsEventMonitor.requestDuration, dimensions)
            #expect(timer.values.count == 1)
            #expect((timer.lastValue ?? 0) > 0)
            #expect(metrics.backend.counterTotal(label: MetricsEventMonitor.requests, dimensions: dimensions) == 1)
            let size = try metrics.backend.expectRecorder(
                MetricsEventMonitor.responseBodySize, metrics.base + [("http.response.status_class", "2xx")])
            #expect((size.lastValue ?? 0) > 0)
            let active = try metrics.backend.expectMeter(MetricsEventMonitor.activeRequests, metrics.base)
            #expect(active.values == [1, 0])
        }
    }

    @Test func failedRequestIsCountedWithItsStatusClassAndItsRetries() async throws {
        try await withTestServer { server in
            let metrics = MonitorMetrics()
            let configuration = testConfiguration {
                $0.monitors = [metrics.monitor]
                $0.retryPolicy = RetryPolicy(maximumAttempts: 3, jitter: { 0 })
                $0.clock = ManualClock()
            }

            _ = try? await TestRequest<FlakyReply>(configuration: configuration) {
                server.get("/flaky/metrics?failures=5")
            }.performAsync()
            await metrics.drain()

            let dimensions = metrics.dimensions(statusClass: "5xx", outcome: "failure")
            #expect(metrics.backend.counterTotal(label: MetricsEventMonitor.requests, dimensions: dimensions) == 1)
            let timer = try metrics.backend.expectTimer(MetricsEventMonitor.requestDuration, dimensions)
            #expect(timer.values.count == 1)
            #expect(metrics.backend.counterTotal(label: MetricsEventMonitor.retries, dimensions: metrics.base) == 2)
        }
    }

    @Test func transportFailureHasNoStatusClass() async throws {
        let metrics = MonitorMetrics()
        let configuration = testConfiguration { $0.monitors = [metrics.monitor] }
        // Port 1: nothing listens there. A stopped test server's port could be reused by
        // another test's server while the suite runs in parallel.
        let closed = try #require(URL(string: "http://127.0.0.1:1"))

        _ = try? await TestRequest<User>(configuration: configuration) {
            ServerRequest(method: .get, baseUrl: closed, relativeUrl: "/users/1")
        }.performAsync()
        await metrics.drain()

        let dimensions = metrics.dimensions(statusClass: "none", outcome: "failure")
        #expect(metrics.backend.counterTotal(label: MetricsEventMonitor.requests, dimensions: dimensions) == 1)
    }
}

/// A ``MetricsEventMonitor`` on a queue of its own, recording into swift-metrics' test backend.
struct MonitorMetrics {
    let backend = TestMetrics()
    let monitor: MetricsEventMonitor
    let base = [("http.request.method", "GET"), ("server.address", "127.0.0.1")]

    init() {
        monitor = MetricsEventMonitor(factory: backend, queue: DispatchQueue(label: "tests.metrics"))
    }

    func dimensions(statusClass: String, outcome: String) -> [(String, String)] {
        base + [("http.response.status_class", statusClass), ("outcome", outcome)]
    }

    /// Waits until the monitor's queue ran every event handed to it.
    func drain() async { await CoreNetKitTests.drain(monitor.queue) }
}
#endif
