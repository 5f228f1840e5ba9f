//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// What one GET of the 20-item page costs the client process, CoreNetKit against the raw
// transports, with the server in its own process:
//
//     swift run -c release --traits AsyncHTTPClient corenetkit-stream costs
//     swift run -c release --traits AsyncHTTPClient corenetkit-stream costs "raw URLSession" 8
//
// The second form runs one way (or several, separated by commas) at one concurrency, twenty rounds: a process to profile with
// `perf record -g -p PID` (the ways are "raw AsyncHTTPClient", "CoreNetKit +
// AsyncHTTPClientTransport", "raw HTTPClient.shared", "CoreNetKit + AsyncHTTPClientTransport
// on HTTPClient.shared", "raw URLSession", "CoreNetKit + URLSessionTransport"; each CoreNetKit way through
// `performAsync()`, and the two own-client ways also through `perform().value`, named "… via perform().value").
//
// AsyncHTTPClient is measured on two clients: one with the transport's own configuration
// (`AsyncHTTPClientTransport.defaultConfiguration()`, what `AsyncHTTPClientTransport()` makes),
// and `HTTPClient.shared` (a browser-like configuration: redirects followed, decompression on,
// read timeout), which an app may hand to `AsyncHTTPClientTransport(client:)`.
//
// Rounds of 2,000 requests (1,000 at c1) go to each way in turn; for each round the process's
// CPU time (user + system, getrusage) and its context switches (voluntary and involuntary, all
// threads) are divided by the requests. A context switch is a thread going to sleep or being
// woken: the hops between threads that a request's latency pays for at c1.

import CoreNetKit
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if AsyncHTTPClient
import AsyncHTTPClient

/// The process's CPU time in microseconds and its context switches so far.
private func usage() -> (cpu: Double, switches: Int) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let cpu =
        Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    return (cpu, usage.ru_nvcsw + usage.ru_nivcsw)
}

/// One GET of the page with a plain `HTTPClient`, decoded, as an app without CoreNetKit would write it.
private func rawPage(_ url: URL, on client: HTTPClient) async throws {
    var request = HTTPClientRequest(url: url.absoluteString)
    request.headers.add(name: "Accept", value: "application/json")
    let response = try await client.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 24)
    let page = try JSONDecoder().decode(PhasePage.self, from: body.withUnsafeReadableBytes { Data($0) })
    precondition(page.items.count == 20)
}

/// Measures each way in turn, `rounds` rounds, and prints per request the medians of the rounds'
/// wall time, CPU time and context switches.
func measureCosts(base: URL, concurrency: Int, rounds: Int = 9, only: String? = nil) async throws {
    let url = base.appendingPathComponent("bench/page")
    let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: AsyncHTTPClientTransport.defaultConfiguration())
    let session = URLSession(configuration: URLSessionTransport.defaultConfiguration())
    let ahcKit = NetworkConfiguration(
        transport: AsyncHTTPClientTransport(), callbackQueue: DispatchQueue(label: "costs"), taskPool: TaskPool())
    let sharedKit = NetworkConfiguration(
        transport: AsyncHTTPClientTransport(client: .shared), callbackQueue: DispatchQueue(label: "costs"),
        taskPool: TaskPool())
    let sessionKit = NetworkConfiguration(
        transport: URLSessionTransport(), callbackQueue: DispatchQueue(label: "costs"), taskPool: TaskPool())
    let all: [(String, @Sendable () async throws -> Void)] = [
        ("raw AsyncHTTPClient", { try await rawPage(url, on: client) }),
        (
            "CoreNetKit + AsyncHTTPClientTransport",
            {
                let page = try await PhasePageRequest(base: base, configuration: ahcKit).performAsync()
                precondition(page.items.count == 20)
            }
        ),
        (
            "CoreNetKit + AsyncHTTPClientTransport via perform().value",
            {
                let page = try await PhasePageRequest(base: base, configuration: ahcKit).perform().value
                precondition(page.items.count == 20)
            }
        ),
        ("raw HTTPClient.shared", { try await rawPage(url, on: .shared) }),
        (
            "CoreNetKit + AsyncHTTPClientTransport on HTTPClient.shared",
            {
                let page = try await PhasePageRequest(base: base, configuration: sharedKit).performAsync()
                precondition(page.items.count == 20)
            }
        ),
        (
            "raw URLSession",
            {
                var request = URLRequest(url: url)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                let data: Data = try await withCheckedThrowingContinuation { continuation in
                    session.dataTask(with: request) { data, _, error in
                        if let data {
                            continuation.resume(returning: data)
                        } else {
                            continuation.resume(throwing: error ?? URLError(.badServerResponse))
                        }
                    }.resume()
                }
                let page = try JSONDecoder().decode(PhasePage.self, from: data)
                precondition(page.items.count == 20)
            }
        ),
        (
            "CoreNetKit + URLSessionTransport",
            {
                let page = try await PhasePageRequest(base: base, configuration: sessionKit).performAsync()
                precondition(page.items.count == 20)
            }
        ),
        (
            "CoreNetKit + URLSessionTransport via perform().value",
            {
                let page = try await PhasePageRequest(base: base, configuration: sessionKit).perform().value
                precondition(page.items.count == 20)
            }
        ),
    ]
    let ways = all.filter { way in only.map { $0.split(separator: ",").contains { $0 == way.0 } } ?? true }
    let total = concurrency == 1 ? 1000 : 2000
    var rows: [String: [(wall: Double, cpu: Double, switches: Double)]] = [:]
    for round in 0..<(rounds + 1) {
        for (name, request) in round % 2 == 0 ? ways : ways.reversed() {
            let before = usage()
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency {
                    group.addTask { for _ in 0..<(total / concurrency) { try await request() } }
                }
                try await group.waitForAll()
            }
            let wall = ContinuousClock.now - start
            let after = usage()
            // The first round warms up.
            guard round > 0 else { continue }
            let count = Double(total)
            rows[name, default: []].append(
                (
                    Double(wall.components.attoseconds) / 1e12 / count + Double(wall.components.seconds) * 1e6 / count,
                    (after.cpu - before.cpu) / count, Double(after.switches - before.switches) / count
                ))
        }
    }
    try await client.shutdown()
    print("| c\(concurrency), per request (median of \(rounds) rounds) | wall µs | CPU µs | context switches |")
    print("|---|---|---|---|")
    for (name, _) in ways {
        let samples = rows[name] ?? []
        func median(_ values: [Double]) -> String { String(format: "%.1f", values.sorted()[values.count / 2]) }
        print(
            "| \(name) | \(median(samples.map(\.wall))) | \(median(samples.map(\.cpu))) | "
                + "\(median(samples.map(\.switches))) |")
    }
}
#endif
