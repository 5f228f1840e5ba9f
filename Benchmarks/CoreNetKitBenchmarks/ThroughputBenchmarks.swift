//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import AsyncHTTPClient
import Benchmark
import CoreNetKit
import CoreNetKitTestServer
import Foundation
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 7, item 2: loopback throughput and latency at concurrency 1, 8 and 64 — CoreNetKit
/// over each transport against the same transport used raw, on the same requests, in one run.
func registerThroughputBenchmarks() {
    let metrics: [BenchmarkMetric] = [Metrics.requestsPerSecond, Metrics.latency, .cpuTotal]
    let configuration = Benchmark.Configuration(
        metrics: metrics, timeUnits: .microseconds, warmupIterations: 2, maxDuration: .seconds(4), maxIterations: 40)
    let ratioConfiguration = Benchmark.Configuration(
        metrics: [Metrics.ratio], warmupIterations: 2, maxDuration: .seconds(8), maxIterations: 40)

    let session = URLSession(configuration: URLSessionTransport.defaultConfiguration())
    let urlSessionKit = benchConfiguration(transport: URLSessionTransport())
    // The same client configuration as the transport's own (redirects left to the caller,
    // decompression with a ratio limit, no retried connection attempts), as the session
    // configuration is the same on the URLSession side.
    #if AsyncHTTPClient
    let ahcConfiguration = AsyncHTTPClientTransport.defaultConfiguration()
    #else
    let ahcConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
    #endif
    let ahcClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: ahcConfiguration)
    #if AsyncHTTPClient
    let ahcKit = benchConfiguration(transport: AsyncHTTPClientTransport())
    let sharedKit = benchConfiguration(transport: AsyncHTTPClientTransport(client: .shared))
    #endif

    for concurrency in [1, 8, 64] {
        let total = concurrency == 1 ? 200 : 640

        Benchmark("Throughput c\(concurrency): raw URLSession", configuration: configuration) { benchmark in
            let url = try await Fixture.baseURL().appendingPathComponent("bench/page")
            try await runLoad(benchmark, total: total, concurrency: concurrency) {
                let data = try await rawURLSession(session, url)
                blackHole(try JSONDecoder().decode(UserPage.self, from: data))
            }
        }

        Benchmark("Throughput c\(concurrency): CoreNetKit + URLSessionTransport", configuration: configuration) {
            benchmark in
            let baseURL = try await Fixture.baseURL()
            try await runLoad(benchmark, total: total, concurrency: concurrency) {
                blackHole(try await benchPageRequest(baseURL: baseURL, configuration: urlSessionKit).performAsync())
            }
        }

        Benchmark("Throughput c\(concurrency): raw AsyncHTTPClient", configuration: configuration) { benchmark in
            let url = try await Fixture.baseURL().appendingPathComponent("bench/page").absoluteString
            try await runLoad(benchmark, total: total, concurrency: concurrency) {
                try await rawAsyncHTTPClient(ahcClient, url)
            }
        }

        Benchmark(
            "Ratio c\(concurrency): CoreNetKit + URLSessionTransport / raw URLSession",
            configuration: ratioConfiguration
        ) { benchmark in
            let baseURL = try await Fixture.baseURL()
            let url = baseURL.appendingPathComponent("bench/page")
            try await runPaired(
                benchmark, total: total, concurrency: concurrency,
                raw: {
                    blackHole(try JSONDecoder().decode(UserPage.self, from: try await rawURLSession(session, url)))
                },
                kit: {
                    blackHole(try await benchPageRequest(baseURL: baseURL, configuration: urlSessionKit).performAsync())
                })
        }

        let urlSessionOnly = URLSessionTransport()
        Benchmark(
            "Ratio c\(concurrency): URLSessionTransport.send alone / raw URLSession",
            configuration: ratioConfiguration
        ) { benchmark in
            let url = try await Fixture.baseURL().appendingPathComponent("bench/page")
            let request = pageRequest(url)
            try await runPaired(
                benchmark, total: total, concurrency: concurrency,
                raw: {
                    blackHole(try JSONDecoder().decode(UserPage.self, from: try await rawURLSession(session, url)))
                },
                kit: { try await sendAlone(request, through: urlSessionOnly) })
        }

        #if AsyncHTTPClient
        // On the transport's own configuration, and on `HTTPClient.shared` (redirects followed,
        // decompression on, read timeout): an app that hands the shared client to the transport.
        for (suffix, client, kit) in [("", ahcClient, ahcKit), (", HTTPClient.shared", HTTPClient.shared, sharedKit)] {
            Benchmark(
                "Ratio c\(concurrency): CoreNetKit + AsyncHTTPClientTransport / raw AsyncHTTPClient\(suffix)",
                configuration: ratioConfiguration
            ) { benchmark in
                let baseURL = try await Fixture.baseURL()
                let url = baseURL.appendingPathComponent("bench/page").absoluteString
                try await runPaired(
                    benchmark, total: total, concurrency: concurrency,
                    raw: { try await rawAsyncHTTPClient(client, url) },
                    kit: {
                        blackHole(try await benchPageRequest(baseURL: baseURL, configuration: kit).performAsync())
                    })
            }
        }

        let transportOnly = AsyncHTTPClientTransport()
        Benchmark(
            "Ratio c\(concurrency): AsyncHTTPClientTransport.send alone / raw AsyncHTTPClient",
            configuration: ratioConfiguration
        ) { benchmark in
            let baseURL = try await Fixture.baseURL()
            let url = baseURL.appendingPathComponent("bench/page")
            let request = pageRequest(url)
            try await runPaired(
                benchmark, total: total, concurrency: concurrency,
                raw: {
                    try await rawAsyncHTTPClient(ahcClient, url.absoluteString)
                },
                kit: { try await sendAlone(request, through: transportOnly) })
        }

        Benchmark("Throughput c\(concurrency): CoreNetKit + AsyncHTTPClientTransport", configuration: configuration) {
            benchmark in
            let baseURL = try await Fixture.baseURL()
            try await runLoad(benchmark, total: total, concurrency: concurrency) {
                blackHole(try await benchPageRequest(baseURL: baseURL, configuration: ahcKit).performAsync())
            }
        }
        #endif
    }
}

/// The page's GET as a transport gets it, with the raw clients' `Accept` header.
private func pageRequest(_ url: URL) -> TransportRequest {
    var urlRequest = URLRequest(url: url)
    urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
    var request = TransportRequest(urlRequest: urlRequest)
    // The body is collected before it is used, as the pipeline says of such requests.
    request.bodyIsCollected = true
    return request
}

/// One GET of the page through `transport` alone, without the pipeline, decoded.
private func sendAlone(_ request: TransportRequest, through transport: any Transport) async throws {
    let response = try await transport.send(request)
    let body = try await response.body.collect(upTo: 1 << 24)
    blackHole(try JSONDecoder().decode(UserPage.self, from: body))
}

/// One GET of the page with a plain `HTTPClient`, decoded, as an app without CoreNetKit would write it.
private func rawAsyncHTTPClient(_ client: HTTPClient, _ url: String) async throws {
    var request = HTTPClientRequest(url: url)
    request.headers.add(name: "Accept", value: "application/json")
    let response = try await client.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 24)
    blackHole(try JSONDecoder().decode(UserPage.self, from: Data(buffer: body)))
}

/// One GET with a plain `URLSession` data task, as an app without CoreNetKit would write it.
private func rawURLSession(_ session: URLSession, _ url: URL) async throws -> Data {
    var request = URLRequest(url: url)
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    return try await withCheckedThrowingContinuation { continuation in
        session.dataTask(with: request) { data, response, error in
            if let error {
                continuation.resume(throwing: error)
                return
            }
            guard (response as? HTTPURLResponse)?.statusCode == 200, let data else {
                continuation.resume(throwing: URLError(.badServerResponse))
                return
            }
            continuation.resume(returning: data)
        }.resume()
    }
}

extension Data {
    init(buffer: ByteBuffer) {
        self = buffer.withUnsafeReadableBytes { Data($0) }
    }
}
