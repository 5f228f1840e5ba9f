//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Benchmark
import Foundation

/// Runs `total` calls of `request` with `concurrency` workers and records each call's latency
/// (µs) and the batch's requests/s as custom metrics.
func runLoad(
    _ benchmark: Benchmark, total: Int, concurrency: Int,
    _ request: @escaping @Sendable () async throws -> Void
) async throws {
    let clock = ContinuousClock()
    let start = clock.now
    let latencies = try await withThrowingTaskGroup(of: [Int].self) { group in
        let perWorker = total / concurrency
        for _ in 0..<concurrency {
            group.addTask {
                var samples: [Int] = []
                samples.reserveCapacity(perWorker)
                for _ in 0..<perWorker {
                    let begin = clock.now
                    try await request()
                    samples.append(Int((clock.now - begin).microseconds))
                }
                return samples
            }
        }
        var all: [Int] = []
        for try await samples in group { all += samples }
        return all
    }
    let elapsed = clock.now - start
    benchmark.measurement(Metrics.requestsPerSecond, Int(Double(latencies.count) / elapsed.seconds))
    for latency in latencies { benchmark.measurement(Metrics.latency, latency) }
}

enum Metrics {
    static let requestsPerSecond = BenchmarkMetric.custom("requests/s", polarity: .prefersLarger, useScalingFactor: false)
    static let latency = BenchmarkMetric.custom("latency (µs)", polarity: .prefersSmaller, useScalingFactor: false)
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var microseconds: Double { seconds * 1e6 }
}
