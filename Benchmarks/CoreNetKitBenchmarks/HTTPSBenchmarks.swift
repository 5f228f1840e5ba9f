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
import NIOSSL

/// HTTPS against the TLS loopback server (a leaf of the test CA, HTTP/2 and HTTP/1.1 by ALPN):
/// CoreNetKit + AsyncHTTPClientTransport with a ServerTrustPolicy that trusts the test CA,
/// paired with raw AsyncHTTPClient trusting the same CA through its client configuration; and
/// HTTP/2 against HTTP/1.1 at c64. URLSession is absent: on Linux it trusts only the system's
/// CA bundle, which a benchmark must not change.
func registerHTTPSBenchmarks() {
    let ratioConfiguration = Benchmark.Configuration(
        metrics: [Metrics.ratio], warmupIterations: 2, maxDuration: .seconds(8), maxIterations: 40)
    let throughputConfiguration = Benchmark.Configuration(
        metrics: [Metrics.requestsPerSecond, Metrics.latency, .cpuTotal], timeUnits: .microseconds,
        warmupIterations: 2, maxDuration: .seconds(4), maxIterations: 40)
    // The HTTP/2 pairs record their own metric: a benchmark shows only the metrics its
    // configuration lists.
    let http2RatioConfiguration = Benchmark.Configuration(
        metrics: [Metrics.http2Ratio], warmupIterations: 2, maxDuration: .seconds(8), maxIterations: 40)
    let h2 = rawHTTPSClient(http1Only: false)
    let h1 = rawHTTPSClient(http1Only: true)

    for concurrency in [1, 8, 64] {
        let total = concurrency == 1 ? 200 : 640
        Benchmark("HTTPS throughput c\(concurrency): raw AsyncHTTPClient", configuration: throughputConfiguration) {
            benchmark in
            let url = try await TLSFixture.server().baseURL.appendingPathComponent("bench/page").absoluteString
            try await runLoad(benchmark, total: total, concurrency: concurrency) { try await rawGet(h2, url) }
        }
        #if AsyncHTTPClient
        let kit = benchConfiguration(transport: httpsTransport(http1Only: false))
        Benchmark(
            "HTTPS throughput c\(concurrency): CoreNetKit + AsyncHTTPClientTransport",
            configuration: throughputConfiguration
        ) { benchmark in
            let baseURL = try await TLSFixture.server().baseURL
            try await runLoad(benchmark, total: total, concurrency: concurrency) {
                blackHole(try await benchPageRequest(baseURL: baseURL, configuration: kit).performAsync())
            }
        }
        Benchmark(
            "HTTPS ratio c\(concurrency): CoreNetKit + AsyncHTTPClientTransport / raw AsyncHTTPClient",
            configuration: ratioConfiguration
        ) { benchmark in
            let baseURL = try await TLSFixture.server().baseURL
            let url = baseURL.appendingPathComponent("bench/page").absoluteString
            try await runPaired(
                benchmark, total: total, concurrency: concurrency,
                raw: { try await rawGet(h2, url) },
                kit: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: kit).performAsync()) })
        }
        // The same without a ServerTrustPolicy: the CA is in the client's own configuration, so
        // requests carry no TLS configuration of their own. Tells the policy's cost from the pipeline's.
        let kitClientTrust = benchConfiguration(transport: AsyncHTTPClientTransport(client: h2))
        Benchmark(
            "HTTPS ratio c\(concurrency): CoreNetKit + AsyncHTTPClientTransport(client:) / raw AsyncHTTPClient",
            configuration: ratioConfiguration
        ) { benchmark in
            let baseURL = try await TLSFixture.server().baseURL
            let url = baseURL.appendingPathComponent("bench/page").absoluteString
            try await runPaired(
                benchmark, total: total, concurrency: concurrency,
                raw: { try await rawGet(h2, url) },
                kit: {
                    blackHole(
                        try await benchPageRequest(baseURL: baseURL, configuration: kitClientTrust).performAsync())
                })
        }
        #endif
    }

    Benchmark("HTTPS c64: HTTP/2 / HTTP/1.1, raw AsyncHTTPClient", configuration: http2RatioConfiguration) {
        benchmark in
        let url = try await TLSFixture.server().baseURL.appendingPathComponent("bench/page").absoluteString
        try await runPaired(
            benchmark, total: 640, concurrency: 64, metric: Metrics.http2Ratio,
            raw: { try await rawGet(h1, url) }, kit: { try await rawGet(h2, url) })
    }
    #if AsyncHTTPClient
    let kitH2 = benchConfiguration(transport: httpsTransport(http1Only: false))
    let kitH1 = benchConfiguration(transport: httpsTransport(http1Only: true))
    Benchmark(
        "HTTPS c64: HTTP/2 / HTTP/1.1, CoreNetKit + AsyncHTTPClientTransport", configuration: http2RatioConfiguration
    ) { benchmark in
        let baseURL = try await TLSFixture.server().baseURL
        try await runPaired(
            benchmark, total: 640, concurrency: 64, metric: Metrics.http2Ratio,
            raw: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: kitH1).performAsync()) },
            kit: { blackHole(try await benchPageRequest(baseURL: baseURL, configuration: kitH2).performAsync()) })
    }
    #endif

    // A new client per iteration, 64 concurrent requests from cold: how many TLS connections the
    // server accepted for them.
    for http1Only in [false, true] {
        let name = http1Only ? "HTTP/1.1" : "HTTP/2"
        Benchmark(
            "HTTPS c64 cold start: connections opened, \(name)",
            configuration: .init(metrics: [Metrics.connections], warmupIterations: 1, maxIterations: 10)
        ) { benchmark in
            let server = try await TLSFixture.server()
            let url = server.baseURL.appendingPathComponent("bench/page").absoluteString
            let client = rawHTTPSClient(http1Only: http1Only)
            let before = server.connectionCounts().accepted
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<64 { group.addTask { try await rawGet(client, url) } }
                try await group.waitForAll()
            }
            benchmark.measurement(Metrics.connections, server.connectionCounts().accepted - before)
            try await client.shutdown()
        }
    }
}

enum TLSFixture {
    private static let started = Task { try await TestServer.start(tls: TestCertificates.shared.valid) }

    static func server() async throws -> TestServer { try await started.value }
}

/// Raw AsyncHTTPClient trusting the test CA; HTTP/2 by ALPN unless `http1Only`.
private func rawHTTPSClient(http1Only: Bool) -> HTTPClient {
    var tls = TLSConfiguration.makeClientConfiguration()
    // safe: a certificate made by swift-certificates always reads
    let authority = try! NIOSSLCertificate(bytes: [UInt8](TestCertificates.shared.authority), format: .der)
    tls.additionalTrustRoots = [.certificates([authority])]
    var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
    if http1Only { configuration.httpVersion = .http1Only }
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}

private func rawGet(_ client: HTTPClient, _ url: String) async throws {
    var request = HTTPClientRequest(url: url)
    request.headers.add(name: "Accept", value: "application/json")
    let response = try await client.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 24)
    blackHole(try JSONDecoder().decode(UserPage.self, from: Data(buffer: body)))
}

#if AsyncHTTPClient
/// CoreNetKit's transport trusting the test CA through a ServerTrustPolicy.
private func httpsTransport(http1Only: Bool) -> AsyncHTTPClientTransport {
    var configuration = AsyncHTTPClientTransport.defaultConfiguration()
    if http1Only { configuration.httpVersion = .http1Only }
    let policy = try! ServerTrustPolicy().trusting(  // safe: a certificate made by swift-certificates
        certificateAuthorities: [TestCertificates.shared.authority], forHosts: ["127.0.0.1"])
    return try! AsyncHTTPClientTransport(configuration: configuration, serverTrust: policy)  // safe: no pins
}
#endif
