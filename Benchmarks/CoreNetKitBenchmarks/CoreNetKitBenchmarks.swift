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

/// Every benchmark of CoreNetKit, registered for package-benchmark.
///
/// Run all: `swift package --disable-sandbox --traits AsyncHTTPClient benchmark`; one:
/// add `--filter "Pipeline.*"`. Ratios are taken within one run (see Benchmarks/README.md).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 10,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )
    registerPipelineBenchmarks()
    registerThroughputBenchmarks()
    registerHTTPSBenchmarks()
    registerFeatureBenchmarks()
    registerRecordingBenchmarks()
}
