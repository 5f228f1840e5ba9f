//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// Where the microseconds of one GET go at concurrency 1 and 8, CoreNetKit over AsyncHTTPClient
// against AsyncHTTPClient alone, with the server in its own process:
//
//     swift run -c release --traits AsyncHTTPClient corenetkit-stream phases
//
// Each request of the 20-item page is cut into four phases by timestamps: before the transport
// is called (CoreNetKit's request building, pool entry, encoding, stages, deadline and the hop to
// the exchange's Task), until the response head, until the end of the body, and from there until
// the caller has the model (the decode, the pipeline's way back and the hop to the caller). A
// transport wrapping `AsyncHTTPClientTransport` takes the CoreNetKit timestamps, in marks each
// request binds as a task-local value (its body is one async sequence more around the transport's).

import CoreNetKit
import Dispatch
import Foundation

#if AsyncHTTPClient
import AsyncHTTPClient

struct PhaseUser: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
}

struct PhasePage: Codable, Sendable {
    let items: [PhaseUser]
    let total: Int
}

/// The page, as a service defines it.
final class PhasePageRequest: BaseServerRequest<PhasePage>, @unchecked Sendable {
    let base: URL

    init(base: URL, configuration: NetworkConfiguration) {
        self.base = base
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() -> ServerRequest {
        var request = ServerRequest(method: .get, baseUrl: base, relativeUrl: "/bench/page")
        request.headers["Accept"] = "application/json"
        return request
    }
}

/// The timestamps the wrapping transport takes for one request: each request binds its own
/// (``current``), which the exchange's Task inherits with the caller's task-local values.
final class PhaseMarks: @unchecked Sendable {  // safe: written by one request's Tasks in turn, read after it
    @TaskLocal static var current: PhaseMarks?
    var sendStarted: UInt64 = 0
    var headReceived: UInt64 = 0
    var bodyEnded: UInt64 = 0

    /// The phases of a request that started at `start` and ended at `end`.
    func phases(start: UInt64, end: UInt64) -> [UInt64] {
        [sendStarted - start, headReceived - sendStarted, bodyEnded - headReceived, end - bodyEnded, end - start]
    }
}

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// `inner`, with the time of the send, of the head and of the end of the body written down in
/// the request's ``PhaseMarks``.
struct MarkingTransport: Transport {
    let inner: any Transport

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let marks = PhaseMarks.current else { return try await inner.send(request) }
        marks.sendStarted = nanoseconds()
        let response = try await inner.send(request)
        marks.headReceived = nanoseconds()
        return TransportResponse(
            statusCode: response.statusCode, headers: response.headers,
            body: ResponseBody(MarkedBody(inner: response.body, marks: marks)), url: response.url)
    }
}

/// A body that writes down when it ends.
struct MarkedBody: AsyncSequence, Sendable {
    typealias Element = Data
    let inner: ResponseBody
    let marks: PhaseMarks

    struct AsyncIterator: AsyncIteratorProtocol {
        var inner: ResponseBody.AsyncIterator
        let marks: PhaseMarks

        mutating func next() async throws -> Data? {
            let chunk = try await inner.next()
            if chunk == nil { marks.bodyEnded = nanoseconds() }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inner: inner.makeAsyncIterator(), marks: marks) }
}

/// The four ways of getting the page, each timed by phase.
struct PhaseWays: Sendable {
    static let names = [
        "CoreNetKit", "raw AsyncHTTPClient", "CoreNetKit, no deadline", "AsyncHTTPClientTransport alone",
    ]
    let base: URL
    let withDeadline: NetworkConfiguration
    let withoutDeadline: NetworkConfiguration
    let client: HTTPClient
    let transportAlone = MarkingTransport(inner: AsyncHTTPClientTransport())

    init(base: URL) {
        self.base = base
        withDeadline = NetworkConfiguration(
            transport: MarkingTransport(inner: AsyncHTTPClientTransport()),
            callbackQueue: DispatchQueue(label: "phases"), taskPool: TaskPool())
        var withoutDeadline = withDeadline
        withoutDeadline.timeout = .infinity
        withoutDeadline.idleTimeout = nil
        self.withoutDeadline = withoutDeadline
        client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.defaultConfiguration())
    }

    /// One request the way `way` says, cut into its phases.
    func request(_ way: String) async throws -> [UInt64] {
        let url = base.appendingPathComponent("bench/page")
        let marks = PhaseMarks()
        let start = nanoseconds()
        let page: PhasePage
        switch way {
        case "raw AsyncHTTPClient":
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await client.execute(request, timeout: .seconds(30))
            marks.sendStarted = start
            marks.headReceived = nanoseconds()
            let body = try await response.body.collect(upTo: 1 << 24)
            marks.bodyEnded = nanoseconds()
            page = try JSONDecoder().decode(PhasePage.self, from: body.withUnsafeReadableBytes { Data($0) })
        case "AsyncHTTPClientTransport alone":
            let request = TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"])
            page = try await PhaseMarks.$current.withValue(marks) {
                let response = try await transportAlone.send(request)
                return try JSONDecoder().decode(PhasePage.self, from: try await response.body.collect(upTo: 1 << 24))
            }
        default:
            let configuration = way == "CoreNetKit" ? withDeadline : withoutDeadline
            page = try await PhaseMarks.$current.withValue(marks) {
                try await PhasePageRequest(base: base, configuration: configuration).performAsync()
            }
        }
        let end = nanoseconds()
        precondition(page.items.count == 20)
        return marks.phases(start: start, end: end)
    }
}

/// Runs the four ways in turn, 512 requests each per round from `concurrency` workers, 24 rounds
/// (the first 4 warm up), and prints the median of each phase in microseconds.
func measurePhases(base: URL, concurrency: Int) async throws {
    let ways = PhaseWays(base: base)
    var rows: [String: [[UInt64]]] = [:]
    for round in 0..<24 {
        let way = PhaseWays.names[round % PhaseWays.names.count]
        let samples = try await withThrowingTaskGroup(of: [[UInt64]].self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var samples: [[UInt64]] = []
                    for _ in 0..<(512 / concurrency) { samples.append(try await ways.request(way)) }
                    return samples
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        if round >= PhaseWays.names.count { rows[way, default: []] += samples }
    }
    try await ways.client.shutdown()
    print("| c\(concurrency), median µs | before the send | to the head | the body | to the model | total |")
    print("|---|---|---|---|---|---|")
    for way in PhaseWays.names {
        let samples = rows[way] ?? []
        let medians = (0..<5).map { phase in samples.map { $0[phase] }.sorted()[samples.count / 2] / 1000 }
        print("| \(way) | " + medians.map(String.init).joined(separator: " | ") + " |")
    }
}
#endif
