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

/// Issue 7, item 1: the pipeline's own cost — `perform()` → transport → validate → decode →
/// context → `value` over a `StubTransport` that returns the 20-item page at once — against
/// `JSONDecoder` decoding the same bytes alone. The difference is what CoreNetKit adds.
func registerPipelineBenchmarks() {
    let page = benchPageBytes()
    let configuration = benchConfiguration(transport: StubTransport.response(
        status: 200, body: page, headers: ["Content-Type": "application/json"]))
    let baseURL = URL(string: "http://bench.invalid")!

    Benchmark("Pipeline: JSONDecoder alone (20-item page)") { benchmark in
        let decoder = JSONDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try decoder.decode(UserPage.self, from: page))
        }
    }

    Benchmark("Pipeline: perform → value over StubTransport (20-item page)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await benchPageRequest(baseURL: baseURL, configuration: configuration).perform().value)
        }
    }
}
