//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if AsyncHTTPClient
@_spi(Testing) @testable import CoreNetKit
import CoreNetKitTestServer
import Foundation
import Testing

/// AsyncHTTPClientTransport's own body buffer: what waits for a slow reader stays bounded, and
/// everything arrives.
@Suite("AsyncHTTPClientTransport", .timeLimit(.minutes(2)))
struct AsyncHTTPClientTransportTests {
    @Test func aSlowReaderHoldsAtMostTheBufferLimitAndGetsTheWholeBody() async throws {
        try await withTestServer { server in
            let total = 16 << 20
            let transport = AsyncHTTPClientTransport()
            let url = server.baseURL.appendingPathComponent("events/bytes")
            var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
            components.queryItems = [URLQueryItem(name: "total", value: "\(total)")]
            let request = TransportRequest(method: .get, url: try #require(components.url), timeout: 60)

            let response = try await transport.send(request)
            guard case .buffer(let owner) = response.body.storage else {
                Issue.record("the body does not come through the transport's buffer")
                return
            }
            let buffer = owner.buffer
            var received = 0
            var mostWaiting = 0
            var iterator = response.body.makeAsyncIterator()
            while let chunk = try await iterator.next() {
                received += chunk.count
                // A slow reader: it lets the event loop run on before taking the next chunk, so a
                // transport that kept reading would fill the buffer far past its limit.
                for _ in 0..<200 {
                    mostWaiting = max(mostWaiting, buffer.bufferedBytes)
                    await Task.yield()
                }
            }

            #expect(received == total)
            // The limit, plus the body parts already on their way when it was crossed.
            #expect(mostWaiting <= AsyncHTTPClientTransport.bodyBufferLimit + 256 * 1024)
            #expect(mostWaiting > 0, "the reader never fell behind: the test shows nothing")
        }
    }
}
#endif
