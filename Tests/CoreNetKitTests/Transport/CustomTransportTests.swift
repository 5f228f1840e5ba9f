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
}
