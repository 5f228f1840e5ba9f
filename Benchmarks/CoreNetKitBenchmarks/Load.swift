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

/// Runs a batch of `raw` and a batch of `kit` back to back (alternating which goes first) and
/// records kit/raw throughput ×1000 for the pair: both see the same machine state, so the ratio
/// holds even when the absolute figures drift. With `cpu`, it also records the process's CPU
/// time (user and system, all threads) for the kit batch over the raw one ×1000: with the server
/// in its own process, what the kit costs the client.
func runPaired(
    _ benchmark: Benchmark, total: Int, concurrency: Int, metric: BenchmarkMetric = Metrics.ratio,
    cpu: BenchmarkMetric? = nil,
    raw: @escaping @Sendable () async throws -> Void, kit: @escaping @Sendable () async throws -> Void
) async throws {
    let clock = ContinuousClock()
    func batch(_ request: @escaping @Sendable () async throws -> Void) async throws -> (Duration, Double) {
        let start = clock.now
        let startCPU = processCPUSeconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask { for _ in 0..<(total / concurrency) { try await request() } }
            }
            try await group.waitForAll()
        }
        return (clock.now - start, processCPUSeconds() - startCPU)
    }
    let kitFirst = Bool.random()
    let first = try await batch(kitFirst ? kit : raw)
    let second = try await batch(kitFirst ? raw : kit)
    let (kitBatch, rawBatch) = kitFirst ? (first, second) : (second, first)
    benchmark.measurement(metric, Int(1000 * rawBatch.0.seconds / kitBatch.0.seconds))
    if let cpu { benchmark.measurement(cpu, Int(1000 * kitBatch.1 / rawBatch.1)) }
}

/// The CPU time this process has used so far, user and system, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    _ = getrusage(RUSAGE_SELF, &usage)
    #endif
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

enum Metrics {
    static let ratio = BenchmarkMetric.custom(
        "CoreNetKit/raw throughput ×1000", polarity: .prefersLarger, useScalingFactor: false)
    static let recordingRatio = BenchmarkMetric.custom(
        "recording/plain throughput ×1000", polarity: .prefersLarger, useScalingFactor: false)
    static let recordingCPU = BenchmarkMetric.custom(
        "recording/plain client CPU ×1000", polarity: .prefersSmaller, useScalingFactor: false)
    static let requestsPerSecond = BenchmarkMetric.custom(
        "requests/s", polarity: .prefersLarger, useScalingFactor: false)
    static let latency = BenchmarkMetric.custom("latency (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let http2Ratio = BenchmarkMetric.custom(
        "HTTP/2 / HTTP/1.1 throughput ×1000", polarity: .prefersLarger, useScalingFactor: false)
    static let connections = BenchmarkMetric.custom(
        "connections opened", polarity: .prefersSmaller, useScalingFactor: false)
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var microseconds: Double { seconds * 1e6 }
}
