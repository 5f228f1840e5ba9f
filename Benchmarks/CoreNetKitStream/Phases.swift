//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// Where the microseconds of one GET go at concurrency 1, CoreNetKit over AsyncHTTPClient against
// AsyncHTTPClient alone, with the server in its own process:
//
//     swift run -c release --traits AsyncHTTPClient corenetkit-stream phases
//
// Each request of the 20-item page is cut into four phases by timestamps: before the transport
// is called (CoreNetKit's request building, pool entry, encoding, stages, deadline and the hop to
// the exchange's Task), until the response head, until the end of the body, and from there until
// the caller has the model (the decode, the pipeline's way back and the hop to the caller). A
// transport wrapping `AsyncHTTPClientTransport` takes the CoreNetKit timestamps (its body is one
// async sequence more around the transport's).

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

/// The timestamps the wrapping transport takes for the request in flight (one at a time).
final class PhaseMarks: @unchecked Sendable {  // safe: requests run one after another, each awaited
    var sendStarted: UInt64 = 0
    var headReceived: UInt64 = 0
    var bodyEnded: UInt64 = 0
}

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// `inner`, with the time of the send, of the head and of the end of the body written down.
struct MarkingTransport: Transport {
    let inner: any Transport
    let marks: PhaseMarks

    func send(_ request: TransportRequest) async throws -> TransportResponse {
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

/// Runs the four ways in turn, 500 requests each per round, 24 rounds (the first 4 warm up),
/// and prints the median of each phase in microseconds.
func measurePhases(base: URL) async throws {
    let marks = PhaseMarks()
    let withDeadline = NetworkConfiguration(
        transport: MarkingTransport(inner: AsyncHTTPClientTransport(), marks: marks),
        callbackQueue: DispatchQueue(label: "phases"), taskPool: TaskPool())
    var withoutDeadline = withDeadline
    withoutDeadline.timeout = .infinity
    withoutDeadline.idleTimeout = nil
    let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.defaultConfiguration()
    )
    let url = base.appendingPathComponent("bench/page").absoluteString
    let transportAlone = MarkingTransport(inner: AsyncHTTPClientTransport(), marks: marks)
    let transportRequest = TransportRequest(
        method: .get, url: base.appendingPathComponent("bench/page"), headers: ["Accept": "application/json"])
    let ways = ["CoreNetKit", "raw AsyncHTTPClient", "CoreNetKit, no deadline", "AsyncHTTPClientTransport alone"]
    var rows: [String: [[UInt64]]] = [:]
    for round in 0..<24 {
        let way = ways[round % ways.count]
        for _ in 0..<500 {
            let phases: [UInt64]
            if way == "raw AsyncHTTPClient" {
                let start = nanoseconds()
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "Accept", value: "application/json")
                let response = try await client.execute(request, timeout: .seconds(30))
                let head = nanoseconds()
                let body = try await response.body.collect(upTo: 1 << 24)
                let bodyEnded = nanoseconds()
                let data = body.withUnsafeReadableBytes { Data($0) }
                let page = try JSONDecoder().decode(PhasePage.self, from: data)
                let end = nanoseconds()
                precondition(page.items.count == 20)
                phases = [0, head - start, bodyEnded - head, end - bodyEnded, end - start]
            } else if way == "AsyncHTTPClientTransport alone" {
                let start = nanoseconds()
                let response = try await transportAlone.send(transportRequest)
                let body = try await response.body.collect(upTo: 1 << 24)
                let page = try JSONDecoder().decode(PhasePage.self, from: body)
                let end = nanoseconds()
                precondition(page.items.count == 20)
                phases = [
                    marks.sendStarted - start, marks.headReceived - marks.sendStarted,
                    marks.bodyEnded - marks.headReceived, end - marks.bodyEnded, end - start,
                ]
            } else {
                let configuration = way == "CoreNetKit" ? withDeadline : withoutDeadline
                let start = nanoseconds()
                let page = try await PhasePageRequest(base: base, configuration: configuration).performAsync()
                let end = nanoseconds()
                precondition(page.items.count == 20)
                phases = [
                    marks.sendStarted - start, marks.headReceived - marks.sendStarted,
                    marks.bodyEnded - marks.headReceived, end - marks.bodyEnded, end - start,
                ]
            }
            if round >= ways.count { rows[way, default: []].append(phases) }
        }
    }
    try await client.shutdown()
    print("| c1, median µs | before the send | to the head | the body | to the model | total |")
    print("|---|---|---|---|---|---|")
    for way in ways {
        let samples = rows[way] ?? []
        let medians = (0..<5).map { phase in samples.map { $0[phase] }.sorted()[samples.count / 2] / 1000 }
        print("| \(way) | " + medians.map(String.init).joined(separator: " | ") + " |")
    }
}
#endif
