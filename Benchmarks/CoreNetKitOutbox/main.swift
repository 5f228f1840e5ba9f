//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// What an outbox costs: `enqueue` latency on a FileOutboxStore (each call appends a record and
// waits for fsync; p50 and p99), and drain throughput (entries sent, answered and recorded per
// second, one queue and 8 queues) against the same POSTs sent with plain `performAsync()`, one
// at a time and 8 at a time, to the loopback server in this process.
//
//   swift run -c release corenetkit-outbox-bench [entries] [runs]

import CoreNetKit
import CoreNetKitTestServer
import Dispatch
import Foundation

/// Prints `line` at once.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let entries = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1000
let runs = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 3

#if AsyncHTTPClient
let transport: any Transport = AsyncHTTPClientTransport()
let transportName = "AsyncHTTPClient"
#else
let transport: any Transport = URLSessionTransport()
let transportName = "URLSession"
#endif
let benchConfiguration = NetworkConfiguration(
    transport: transport, callbackQueue: DispatchQueue(label: "bench.callbacks"), timeout: 30)

/// A POST the loopback server applies once per key.
func change(_ server: TestServer, queue: String, seq: Int, key: String? = nil) -> ServerRequest {
    ServerRequest(
        method: .post, baseUrl: server.baseURL, relativeUrl: "/outbox/apply/\(queue)/\(seq)",
        headers: key.map { ["Idempotency-Key": $0] } ?? [:], parameters: .jsonObject(["seq": .int(seq)]))
}

final class Post: BaseServerRequest<Data>, @unchecked Sendable {
    let request: ServerRequest
    init(_ request: ServerRequest) {
        self.request = request
        super.init(configuration: benchConfiguration)
    }
    override func createAsyncServerRequest() -> ServerRequest { request }
}

func percentile(_ sorted: [Duration], _ p: Double) -> Duration {
    sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

func ms(_ duration: Duration) -> String { String(format: "%.3f ms", duration.timeInterval * 1000) }

extension Duration {
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

func withJournal<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder.appendingPathComponent("outbox.journal"))
}

/// Enqueues `entries` changes in `queues` queues (timing each call), then drains them; returns
/// the enqueue latencies and the drain rate in entries per second.
func outboxRun(_ server: TestServer, queues: Int) async throws -> ([Duration], Double) {
    try await withJournal { journal in
        let outbox = Outbox(
            store: try FileOutboxStore(url: journal, maximumEntries: entries + 1), configuration: benchConfiguration,
            options: Outbox.Options(concurrency: queues))
        var latencies: [Duration] = []
        let clock = ContinuousClock()
        for seq in 0..<entries {
            let queue = "q\(seq % queues)"
            let started = clock.now
            try await outbox.enqueue(change(server, queue: queue, seq: seq), kind: "apply", queue: queue)
            latencies.append(started.duration(to: clock.now))
        }
        let outcomes = outbox.outcomes()
        let started = clock.now
        outbox.start()
        var settled = 0
        for await _ in outcomes {
            settled += 1
            if settled == entries { break }
        }
        let elapsed = started.duration(to: clock.now)
        await outbox.stop()
        return (latencies, Double(entries) / elapsed.timeInterval)
    }
}

/// The same POSTs with `performAsync()`, `concurrency` at a time; entries per second.
func plainRun(_ server: TestServer, concurrency: Int) async throws -> Double {
    let clock = ContinuousClock()
    let started = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for lane in 0..<concurrency {
            group.addTask {
                for seq in stride(from: lane, to: entries, by: concurrency) {
                    _ = try await Post(change(server, queue: "plain", seq: seq, key: UUID().uuidString)).performAsync()
                }
            }
        }
        try await group.waitForAll()
    }
    return Double(entries) / started.duration(to: clock.now).timeInterval
}

say("outbox benchmark: \(entries) entries, \(runs) runs, \(transportName), loopback server in process")
for run in 1...runs {
    try await withTestServer { server in
        let (latencies, oneQueue) = try await outboxRun(server, queues: 1)
        let (_, eightQueues) = try await outboxRun(server, queues: 8)
        let plainOne = try await plainRun(server, concurrency: 1)
        let plainEight = try await plainRun(server, concurrency: 8)
        let sorted = latencies.sorted()
        say(
            "run \(run): enqueue p50 \(ms(percentile(sorted, 0.5))) p99 \(ms(percentile(sorted, 0.99))); "
                + String(
                    format: "drain 1 queue %.0f/s (plain c1 %.0f/s, %.2f), 8 queues %.0f/s (plain c8 %.0f/s, %.2f)",
                    oneQueue, plainOne, oneQueue / plainOne, eightQueues, plainEight, eightQueues / plainEight))
    }
}
