//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Benchmark
import CoreNetKit
import Foundation

/// A monitor that implements nothing: what having a monitor at all costs.
private struct SilentMonitor: NetworkEventMonitor {}

/// A monitor that asks for every exchange as HARRecorder does (inline, bodies up to 64 KiB) and
/// drops it: what the pipeline's part of recording costs (each exchange redacted and handed
/// over), apart from the recorder's (the entry, its JSON and the write).
private struct ExchangeTaker: NetworkEventMonitor {
    var runsInline: Bool { true }
    var events: NetworkMonitorEvents { [] }
    var exchangeBodyLimit: Int? { 64 << 10 }
    func request(_ request: MonitoredRequest, didExchange exchange: MonitoredExchange) { blackHole(exchange) }
}

/// What recording every exchange as HAR costs: the same request through the same transport,
/// with and without a HARRecorder (bodies under its cap), paired batch by batch; its two parts
/// (exchanges taken and dropped against none, HARRecorder against that); and a monitor that
/// does nothing against none.
func registerRecordingBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [Metrics.recordingRatio, Metrics.recordingCPU], warmupIterations: 2, maxDuration: .seconds(20),
        maxIterations: 30)
    // The bound of issue 45 is read at c8: about a hundred pairs, for a p50 within about 1 %.
    let headline = Benchmark.Configuration(
        metrics: [Metrics.recordingRatio, Metrics.recordingCPU], warmupIterations: 2, maxDuration: .seconds(100),
        maxIterations: 120)
    for concurrency in [1, 8] {
        Benchmark(
            "Recording c\(concurrency): HARRecorder / no monitor (URLSessionTransport)",
            configuration: concurrency == 8 ? headline : configuration
        ) {
            benchmark in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("corenetkit-bench-\(UUID()).har")
            defer { try? FileManager.default.removeItem(at: file) }
            let recorder = try HARRecorder(file: file)
            let transport = URLSessionTransport()
            let plain = benchConfiguration(transport: transport)
            let recorded = {
                var configuration = plain
                configuration.monitors = [recorder]
                return configuration
            }()
            let baseURL = try await Fixture.baseURL()
            try await runPaired(
                benchmark, total: concurrency == 1 ? 200 : 640, concurrency: concurrency,
                metric: Metrics.recordingRatio, cpu: Metrics.recordingCPU,
                raw: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: plain).performAsync()) },
                kit: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: recorded).performAsync()) }
            )
            recorder.close()
        }
    }
    // The two parts of recording's cost at c8, each paired against the configuration below it,
    // with more pairs than the rows above: the parts are a few percent each.
    let parts = Benchmark.Configuration(
        metrics: [Metrics.recordingRatio, Metrics.recordingCPU], warmupIterations: 2, maxDuration: .seconds(45),
        maxIterations: 60)
    for (name, recorded) in [("HARRecorder / exchanges taken", true), ("exchanges taken / no monitor", false)] {
        Benchmark("Recording c8: \(name) (URLSessionTransport)", configuration: parts) { benchmark in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("corenetkit-bench-\(UUID()).har")
            defer { try? FileManager.default.removeItem(at: file) }
            let recorder = try HARRecorder(file: file)
            var below = benchConfiguration(transport: URLSessionTransport())
            var above = below
            if recorded { below.monitors = [ExchangeTaker()] }
            above.monitors = [recorded ? recorder : ExchangeTaker()]
            let (plain, monitored) = (below, above)
            let baseURL = try await Fixture.baseURL()
            try await runPaired(
                benchmark, total: 640, concurrency: 8, metric: Metrics.recordingRatio, cpu: Metrics.recordingCPU,
                raw: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: plain).performAsync()) },
                kit: {
                    blackHole(try await benchPageRequest(baseURL: baseURL, configuration: monitored).performAsync())
                }
            )
            recorder.close()
        }
    }
    // The same configuration on both sides: how far from 1.000 the pairing itself reads.
    Benchmark("Recording c8: no monitor / no monitor (URLSessionTransport)", configuration: configuration) {
        benchmark in
        let plain = benchConfiguration(transport: URLSessionTransport())
        let baseURL = try await Fixture.baseURL()
        try await runPaired(
            benchmark, total: 640, concurrency: 8, metric: Metrics.recordingRatio, cpu: Metrics.recordingCPU,
            raw: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: plain).performAsync()) },
            kit: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: plain).performAsync()) })
    }
    Benchmark("Recording c8: silent monitor / no monitor (URLSessionTransport)", configuration: configuration) {
        benchmark in
        let plain = benchConfiguration(transport: URLSessionTransport())
        let monitored = {
            var configuration = plain
            configuration.monitors = [SilentMonitor()]
            return configuration
        }()
        let baseURL = try await Fixture.baseURL()
        try await runPaired(
            benchmark, total: 640, concurrency: 8, metric: Metrics.recordingRatio, cpu: Metrics.recordingCPU,
            raw: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: plain).performAsync()) },
            kit: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: monitored).performAsync()) })
    }
}
