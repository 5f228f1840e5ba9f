//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A monitor that keeps per-host request counts, errors and latency percentiles in memory.
///
/// ```swift
/// let metrics = HostMetricsMonitor()
/// NetworkConfiguration.default.monitors.append(metrics)
/// // later, for a debug screen or a health check:
/// for (host, stats) in metrics.snapshot() { print(host, stats.requests, stats.p50, stats.p99) }
/// ```
///
/// A request counts once when it finishes (not when cancelled); its latency includes retries and mapping.
/// Percentiles come from each host's latest ``sampleLimit`` requests. Reading is thread-safe and includes every
/// finish event the monitor's queue has run.
public final class HostMetricsMonitor: NetworkEventMonitor {
    /// The metrics of one host.
    public struct HostMetrics: Sendable, Equatable {
        /// Requests that finished, successfully or not.
        public var requests: Int
        /// Requests that ended in an error.
        public var errors: Int
        /// The median latency of the latest samples.
        public var p50: Duration
        /// The 99th-percentile latency of the latest samples.
        public var p99: Duration
    }

    private struct Host {
        var requests = 0
        var errors = 0
        var samples: [Duration] = []
        var next = 0
    }

    private let hosts = Locked<[String: Host]>([:])
    /// How many of the latest latencies per host the percentiles are computed from.
    public let sampleLimit: Int
    /// The queue the monitor runs on.
    public let queue: DispatchQueue

    /// Creates an empty monitor keeping up to `sampleLimit` (at least 1) latencies per host.
    public init(sampleLimit: Int = 1024, queue: DispatchQueue = NetworkMonitorQueue.shared) {
        self.sampleLimit = max(sampleLimit, 1)
        self.queue = queue
    }

    /// Only the request's end is read: no other event wakes its queue.
    public var events: NetworkMonitorEvents { .requests }

    public func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics) {
        let host = request.host
        let failed = if case .failure = metrics.outcome { true } else { false }
        let limit = sampleLimit
        hosts.withLock { hosts in
            var entry = hosts[host] ?? Host()
            entry.requests += 1
            if failed { entry.errors += 1 }
            if entry.samples.count < limit {
                entry.samples.append(metrics.totalDuration)
            } else {
                entry.samples[entry.next] = metrics.totalDuration
                entry.next = (entry.next + 1) % limit
            }
            hosts[host] = entry
        }
    }

    /// The metrics of every host seen so far.
    public func snapshot() -> [String: HostMetrics] {
        hosts.withLock { $0 }.mapValues { host in
            let sorted = host.samples.sorted()
            return HostMetrics(
                requests: host.requests, errors: host.errors, p50: Self.percentile(0.5, of: sorted),
                p99: Self.percentile(0.99, of: sorted))
        }
    }

    /// Forgets every host.
    public func reset() {
        hosts.withLock { $0 = [:] }
    }

    private static func percentile(_ fraction: Double, of sorted: [Duration]) -> Duration {
        guard !sorted.isEmpty else { return .zero }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
