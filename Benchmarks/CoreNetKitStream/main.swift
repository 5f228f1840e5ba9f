//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// Streamed responses read by service code (`ResponseStream`), measured against the raw
// transports' own streaming, with the server in a process of its own:
//
//     swift run -c release corenetkit-stream            # URLSession only
//     swift run -c release --traits AsyncHTTPClient corenetkit-stream URLSession
//     swift run -c release --traits AsyncHTTPClient corenetkit-stream AsyncHTTPClient
//     swift run -c release --traits AsyncHTTPClient corenetkit-stream phases   # see Phases.swift
//
// Give one transport per run: a URLSession transfer that failed keeps being fed by libcurl for a
// while after it was cancelled, and would count against the next transport's memory.
//
// The benchmark starts itself again as `corenetkit-stream serve` (the loopback test server, in
// its own process) and then, in this process:
// 1. reads a 1 GiB chunked stream through `ServerRequest.stream(configuration:)` with a reader
//    slower than the server (1 ms pause per 64 KiB), reporting the outcome, the bytes read and
//    the growth of this process's peak RSS (reset before each run);
// 2. reads a 256 MiB stream as fast as possible, six rounds, each round the raw transport and
//    CoreNetKit on the same stream back to back (which goes first alternates), and reports MB/s and the ratio CoreNetKit / raw.

import CoreNetKit
import CoreNetKitTestServer
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if AsyncHTTPClient
import AsyncHTTPClient
#endif

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Reads `total` bytes of `/events/bytes` through CoreNetKit, pausing `pause` per 64 KiB.
func streamed(_ base: URL, total: Int, transport: any Transport, pause: Duration?) async -> (String, Int) {
    let configuration = NetworkConfiguration(
        transport: transport, callbackQueue: DispatchQueue(label: "stream"), taskPool: TaskPool())
    let request = ServerRequest(method: .get, baseUrl: base, relativeUrl: "/events/bytes?total=\(total)")
    var read = 0
    do {
        for try await chunk in request.stream(configuration: configuration) {
            read += chunk.count
            if let pause, read % (64 << 10) < chunk.count { try await Task.sleep(for: pause) }
        }
        return ("complete", read)
    } catch let error as BaseServerError {
        return ("\(error.code): \(error.message ?? "")", read)
    } catch {
        return ("\(error)", read)
    }
}

/// Counts a data task's body bytes as URLSession delivers them: the raw transport's streaming.
final class CountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // safe: fields under `lock`
    private let lock = NSLock()
    private var bytes = 0
    private var done: CheckedContinuation<Int, Never>?

    func wait(_ body: () -> Void) async -> Int {
        await withCheckedContinuation { continuation in
            lock.withLock { done = continuation }
            body()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { bytes += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, total) = lock.withLock { (done, bytes) }
        continuation?.resume(returning: total)
    }
}

func rawURLSession(_ url: URL) async -> Int {
    let delegate = CountingDelegate()
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.httpMaximumConnectionsPerHost = 4
    let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    return await delegate.wait { session.dataTask(with: url).resume() }
}

#if AsyncHTTPClient
func rawAsyncHTTPClient(_ url: URL, client: HTTPClient) async throws -> Int {
    let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .hours(1))
    var total = 0
    for try await buffer in response.body { total += buffer.readableBytes }
    return total
}
#endif

/// One round: the raw transport and CoreNetKit on the same stream, in the order `rawFirst` says;
/// MB/s of each.
func round(
    _ base: URL, total: Int, transport: any Transport, rawFirst: Bool, raw: (URL) async throws -> Int
) async throws -> (raw: Double, kit: Double) {
    let url = URL(string: "\(base.absoluteString)/events/bytes?total=\(total)")!
    var rawRate = 0.0
    var kitRate = 0.0
    var rawBytes = 0
    var kitBytes = 0
    var outcome = ""
    for rawTurn in rawFirst ? [true, false] : [false, true] {
        let start = ContinuousClock.now
        if rawTurn {
            rawBytes = try await raw(url)
            rawRate = Double(rawBytes) / 1e6 / seconds(since: start)
        } else {
            (outcome, kitBytes) = await streamed(base, total: total, transport: transport, pause: nil)
            kitRate = Double(kitBytes) / 1e6 / seconds(since: start)
        }
    }
    guard rawBytes == total, kitBytes == total else {
        throw BaseServerError.invalidRequest("incomplete: raw \(rawBytes), CoreNetKit \(kitBytes) (\(outcome))")
    }
    return (rawRate, kitRate)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func runBenchmarks(base: URL, only: String?) async throws {
    var transports: [(String, any Transport)] = [("URLSession", URLSessionTransport())]
    #if AsyncHTTPClient
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    transports.append(("AsyncHTTPClient", AsyncHTTPClientTransport()))
    #endif
    if let only { transports = transports.filter { $0.0.lowercased() == only.lowercased() } }
    print("\nA 1 GiB stream read by a reader slower than the server (1 ms pause per 64 KiB)\n")
    print("| transport | outcome | read | time | peak RSS growth |\n|---|---|---|---|---|")
    for (name, transport) in transports {
        let before = ResidentMemory.resetPeak()
        let start = ContinuousClock.now
        let (outcome, read) = await streamed(base, total: 1 << 30, transport: transport, pause: .milliseconds(1))
        let grown = max(0, ResidentMemory.peak() - before) >> 20
        print(
            "| \(name) | \(outcome) | \(read >> 20) MiB | \(String(format: "%.1f", seconds(since: start))) s | +\(grown) MB |"
        )
    }
    print(
        "\nA 256 MiB stream read as fast as possible: MB/s, median of 6 paired rounds (alternating which goes first)\n")
    print("| transport | raw | CoreNetKit `stream()` | ratio (median of per-round ratios) |\n|---|---|---|---|")
    for (name, transport) in transports {
        var rounds: [(raw: Double, kit: Double)] = []
        for index in 0..<6 {
            #if AsyncHTTPClient
            if name == "AsyncHTTPClient" {
                rounds.append(
                    try await round(base, total: 256 << 20, transport: transport, rawFirst: index % 2 == 0) {
                        try await rawAsyncHTTPClient($0, client: client)
                    })
                continue
            }
            #endif
            rounds.append(
                try await round(base, total: 256 << 20, transport: transport, rawFirst: index % 2 == 0) {
                    await rawURLSession($0)
                })
        }
        let ratio = median(rounds.map { $0.kit / $0.raw })
        print(
            "| \(name) | \(Int(median(rounds.map(\.raw)))) | \(Int(median(rounds.map(\.kit)))) | "
                + "\(String(format: "%.2f", ratio)) |")
    }
    #if AsyncHTTPClient
    try await client.shutdown()
    #endif
}

let done = DispatchSemaphore(value: 0)
if CommandLine.arguments.dropFirst().first == "serve" {
    // The server process: print the port, serve until the parent closes our standard input.
    Task.detached {
        let server = try await TestServer.start()
        FileHandle.standardOutput.write(Data("PORT \(server.baseURL.port ?? 0)\n".utf8))
        await Task.detached { _ = FileHandle.standardInput.readDataToEndOfFile() }.value
        await server.stop()
        done.signal()
    }
} else {
    Task.detached {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["serve"]
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        do {
            try child.run()
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            guard
                let port = line.split(separator: " ").last.flatMap({
                    Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
                })
            else { throw BaseServerError.invalidRequest("the server process printed \(line)") }
            print("server: pid \(child.processIdentifier), 127.0.0.1:\(port)")
            let only = CommandLine.arguments.dropFirst().first
            let base = URL(string: "http://127.0.0.1:\(port)")!
            #if AsyncHTTPClient
            if only == "phases" {
                for concurrency in [1, 8] { try await measurePhases(base: base, concurrency: concurrency) }
            } else if only == "costs" {
                let way = CommandLine.arguments.dropFirst(2).first
                let levels = CommandLine.arguments.dropFirst(3).first.map { [Int($0)!] } ?? [1, 8, 64]
                for concurrency in levels {
                    try await measureCosts(
                        base: base, concurrency: concurrency, rounds: way == nil ? 9 : 20, only: way)
                }
            } else {
                try await runBenchmarks(base: base, only: only)
            }
            #else
            try await runBenchmarks(base: base, only: only)
            #endif
        } catch {
            print("failed: \(error)")
        }
        try? input.fileHandleForWriting.close()
        child.waitUntilExit()
        done.signal()
    }
}
done.wait()
