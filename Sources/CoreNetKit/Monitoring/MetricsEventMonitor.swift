//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Metrics
import CoreMetrics
import Dispatch
import Foundation

/// A ``NetworkEventMonitor`` that records swift-metrics counters and timers for every request (package trait
/// `Metrics`).
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory())      // or any swift-metrics backend
/// NetworkConfiguration.default.monitors.append(MetricsEventMonitor())
/// ```
///
/// Names follow the OpenTelemetry HTTP client conventions where one exists, else carry the `corenetkit.` prefix:
///
/// | Name | Kind | When | Dimensions |
/// |---|---|---|---|
/// | `http.client.request.duration` | `Timer` | a request finished (whole request: retries, refreshes, mapping) | method, address, status class, outcome |
/// | `corenetkit.http.client.requests` | `Counter` | a request finished or was cancelled | method, address, status class, outcome |
/// | `http.client.active_requests` | `Meter` | +1 when a request starts, −1 when it ends | method, address |
/// | `http.client.response.body.size` | `Recorder` (bytes) | the transport returned a response (each attempt) | method, address, status class |
/// | `corenetkit.http.client.retries` | `Counter` | the retry stage schedules another attempt | method, address |
///
/// Dimensions: `http.request.method`, `server.address` (the host), `http.response.status_class` (`2xx` … `5xx` of
/// the last response, `none` when none came) and `outcome` (`success`, `cache`, `failure`, `cancelled`). A metric
/// always has the same dimension names, as Prometheus requires; none holds a path or id, so cardinality is bounded.
///
/// Every method runs on ``queue``, once per event.
public final class MetricsEventMonitor: NetworkEventMonitor {
    /// The label of the timer of whole requests.
    public static let requestDuration = "http.client.request.duration"
    /// The label of the counter of finished and cancelled requests.
    public static let requests = "corenetkit.http.client.requests"
    /// The label of the meter of requests in flight.
    public static let activeRequests = "http.client.active_requests"
    /// The label of the recorder of response body sizes, in bytes.
    public static let responseBodySize = "http.client.response.body.size"
    /// The label of the counter of retries.
    public static let retries = "corenetkit.http.client.retries"

    /// The serial queue the monitor runs on.
    public let queue: DispatchQueue
    private let factory: any MetricsFactory
    /// By request id, for requests in flight.
    private let lastStatus = Locked<[String: Int]>([:])

    /// Creates a monitor recording into `factory`, by default what `MetricsSystem.bootstrap(_:)` installed.
    public init(factory: any MetricsFactory = MetricsSystem.factory, queue: DispatchQueue = NetworkMonitorQueue.shared)
    {
        self.factory = factory
        self.queue = queue
    }

    public func requestDidStart(_ request: MonitoredRequest) {
        Meter(label: Self.activeRequests, dimensions: Self.base(request), factory: factory).increment()
    }

    public func request(_ request: MonitoredRequest, didReceive response: MonitoredResponse) {
        lastStatus.withLock { $0[request.id] = response.statusCode }
        let dimensions = Self.base(request) + [("http.response.status_class", Self.statusClass(response.statusCode))]
        Recorder(label: Self.responseBodySize, dimensions: dimensions, factory: factory).record(response.bytes)
    }

    public func request(_ request: MonitoredRequest, willRetry retry: MonitoredRetry) {
        Counter(label: Self.retries, dimensions: Self.base(request), factory: factory).increment()
    }

    public func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics) {
        var status = lastStatus.withLock { $0.removeValue(forKey: request.id) }
        let outcome: String
        switch metrics.outcome {
        case .success(let fromCache): outcome = fromCache ? "cache" : "success"
        case .failure(let error):
            outcome = "failure"
            status = (error as? BaseServerError)?.statusCode ?? status
        }
        let dimensions = Self.dimensions(request, status: status, outcome: outcome)
        CoreMetrics.Timer(label: Self.requestDuration, dimensions: dimensions, factory: factory)
            .recordNanoseconds(Self.nanoseconds(metrics.totalDuration))
        Counter(label: Self.requests, dimensions: dimensions, factory: factory).increment()
        Meter(label: Self.activeRequests, dimensions: Self.base(request), factory: factory).decrement()
    }

    public func requestWasCancelled(_ request: MonitoredRequest) {
        let last = lastStatus.withLock { $0.removeValue(forKey: request.id) }
        let dimensions = Self.dimensions(request, status: last, outcome: "cancelled")
        Counter(label: Self.requests, dimensions: dimensions, factory: factory).increment()
        Meter(label: Self.activeRequests, dimensions: Self.base(request), factory: factory).decrement()
    }

    private static func base(_ request: MonitoredRequest) -> [(String, String)] {
        [("http.request.method", request.method.rawValue), ("server.address", request.host)]
    }

    private static func dimensions(_ request: MonitoredRequest, status: Int?, outcome: String) -> [(String, String)] {
        base(request) + [("http.response.status_class", status.map(statusClass) ?? "none"), ("outcome", outcome)]
    }

    private static func statusClass(_ status: Int) -> String {
        (100..<600).contains(status) ? "\(status / 100)xx" : "none"
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
#endif
