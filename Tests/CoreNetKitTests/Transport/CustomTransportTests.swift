//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Foundation
import Testing

// The custom transport of the Transports article, as it is printed there.

/// Counts the body bytes that went through `base`.
struct CountingTransport: Transport {
    let base: any Transport
    let counter: ByteCounter

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var response = try await base.send(request)  // returns at the head
        response.body = ResponseBody(Counted(body: response.body, counter: counter))
        return response
    }

    /// The chunks of `body`, counted as the pipeline pulls them.
    struct Counted: AsyncSequence, Sendable {
        typealias Element = Data
        let body: ResponseBody
        let counter: ByteCounter

        func makeAsyncIterator() -> Iterator { Iterator(base: body.makeAsyncIterator(), counter: counter) }

        struct Iterator: AsyncIteratorProtocol {
            var base: ResponseBody.AsyncIterator
            let counter: ByteCounter

            mutating func next() async throws -> Data? {
                guard let chunk = try await base.next() else { return nil }
                counter.add(chunk.count)
                return chunk
            }
        }
    }
}

/// A thread-safe byte count.
final class ByteCounter: @unchecked Sendable {  // safe: `bytes` is touched only under `lock`
    private let lock = NSLock()
    private var bytes = 0

    func add(_ count: Int) {
        lock.lock()
        defer { lock.unlock() }
        bytes += count
    }

    var total: Int {
        lock.lock()
        defer { lock.unlock() }
        return bytes
    }
}

@Suite(.timeLimit(.minutes(3))) struct CustomTransportTests {
    @Test func theArticlesCountingTransportSeesEveryBodyByteTheModelWasDecodedFrom() async throws {
        try await withFaultServer { faults in
            let counter = ByteCounter()
            let configuration = testConfiguration(
                transport: CountingTransport(base: sharedTestTransport, counter: counter))

            let result = try await outcome(of: faults.request(.hugeJSON, configuration: configuration, timeout: 30))

            #expect((try? result.get())?.tags.count == 16_000)
            #expect(counter.total > 1_000_000)
        }
    }

    @Test func aCustomTransportsBodyIsBoundByTheSameBudget() async throws {
        try await withFaultServer { faults in
            let counter = ByteCounter()
            let configuration = testConfiguration(
                transport: CountingTransport(base: sharedTestTransport, counter: counter)
            ) { $0.maximumResponseBodySize = 64 * 1024 }

            let result = try await outcome(of: faults.request(.hugeJSON, configuration: configuration, timeout: 30))

            #expect(result.failureCode == .responseTooLarge)
            #expect(counter.total < 1_000_000)
        }
    }

    @Test(arguments: [1, 2])
    func aBodyInSlicesOfALargerBufferArrivesWithItsIndicesFromZero(pieces: Int) async throws {
        try await withFaultServer { faults in
            let configuration = testConfiguration(
                transport: SlicingTransport(base: sharedTestTransport, pieces: pieces))
            let base = faults.baseURL
            let request = TestRequest<Data>(configuration: configuration) {
                ServerRequest(method: .get, baseUrl: base, relativeUrl: "/fault/ok", timeout: 30)
            }

            let data = try await withTimeout(60, "a sliced body") { try await request.performAsync() }

            #expect(data.startIndex == 0)
            #expect(data.first == UInt8(ascii: "{"))
            #expect(String(decoding: data, as: UTF8.self) == #"{"id":1,"name":"ok","tags":["a"]}"#)
        }
    }
}

/// Hands the body on as slices of a larger buffer, whose indices do not start at 0: in one
/// chunk (as long as the announced length, as a one-chunk body usually is) or in two.
struct SlicingTransport: Transport {
    let base: any Transport
    let pieces: Int

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var response = try await base.send(request)
        var whole = Data()
        for try await chunk in response.body { whole.append(chunk) }
        let padded = Data(repeating: 0x20, count: 7) + whole
        let middle = 7 + whole.count / 2
        let chunks = pieces == 1 ? [padded[7...]] : [padded[7..<middle], padded[middle...]]
        response.body = ResponseBody(
            AsyncStream<Data> { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            })
        return response
    }
}
