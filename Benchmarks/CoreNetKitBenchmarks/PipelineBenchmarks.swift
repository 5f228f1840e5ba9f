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

/// Issue 7, item 1: the pipeline's own cost over a `StubTransport` that returns the 20-item page
/// at once — `performAsync()` (the pipeline in the caller's Task) and `perform()` → context →
/// `value` (a Task per request and a hop back) — against `JSONDecoder` decoding the same bytes
/// alone. The difference is what CoreNetKit adds.
func registerPipelineBenchmarks() {
    let page = benchPageBytes()
    let configuration = benchConfiguration(
        transport: StubTransport.response(
            status: 200, body: page, headers: ["Content-Type": "application/json"]))
    let baseURL = URL(string: "http://bench.invalid")!
    // 1,000 calls per measured iteration, run off the main actor, so executor hops between the
    // harness and the measured code are not counted; figures are per call.
    let perCall = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .throughput], timeUnits: .microseconds, warmupIterations: 2,
        scalingFactor: .kilo, maxDuration: .seconds(3), maxIterations: 1_000)

    Benchmark("Pipeline: JSONDecoder alone (20-item page)", configuration: perCall) { benchmark in
        try await offMainActor(benchmark.scaledIterations) { iterations in
            let decoder = JSONDecoder()
            for _ in iterations { blackHole(try decoder.decode(UserPage.self, from: page)) }
        }
    }

    Benchmark("Pipeline: performAsync over StubTransport (20-item page)", configuration: perCall) { benchmark in
        try await offMainActor(benchmark.scaledIterations) { iterations in
            for _ in iterations {
                blackHole(try await benchPageRequest(baseURL: baseURL, configuration: configuration).performAsync())
            }
        }
    }

    // The cost of the chain itself: the default chain without the retry stage (the pair shows
    // what its presence costs), and the default chain with 3 and 10 user interceptors that each
    // pass the request on unchanged.
    let standard = configuration.interceptors
    for (name, interceptors) in [
        ("without RetryInterceptor", standard.filter { !($0 is RetryInterceptor) }),
        ("+ 3 interceptors", standard + passThrough(3)),
        ("+ 10 interceptors", standard + passThrough(10)),
    ] {
        let chained = configuration.with(interceptors: interceptors)
        Benchmark("Pipeline: performAsync \(name) (20-item page)", configuration: perCall) { benchmark in
            try await offMainActor(benchmark.scaledIterations) { iterations in
                for _ in iterations {
                    blackHole(try await benchPageRequest(baseURL: baseURL, configuration: chained).performAsync())
                }
            }
        }
    }

    Benchmark("Pipeline: perform → value over StubTransport (20-item page)", configuration: perCall) { benchmark in
        try await offMainActor(benchmark.scaledIterations) { iterations in
            for _ in iterations {
                blackHole(try await benchPageRequest(baseURL: baseURL, configuration: configuration).perform().value)
            }
        }
    }
}

/// Runs `body` on the global concurrent executor, not the caller's actor.
nonisolated func offMainActor(_ iterations: Range<Int>, _ body: @Sendable (Range<Int>) async throws -> Void)
    async throws
{
    try await body(iterations)
}

/// An interceptor that only passes the request on: the cost of one more stage.
struct PassThroughInterceptor: Interceptor {
    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        try await next.proceed(request)
    }
}

func passThrough(_ count: Int) -> [any Interceptor] {
    Array(repeating: PassThroughInterceptor(), count: count)
}

extension NetworkConfiguration {
    func with(interceptors: [any Interceptor]) -> NetworkConfiguration {
        var copy = self
        copy.interceptors = interceptors
        return copy
    }
}
