//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

/// A kept-alive connection the server drops while the client reuses it, and status lines that
/// are not HTTP, end the same way on both transports (the suite runs on each).
@Suite(.timeLimit(.minutes(3))) struct ReusedConnectionTests {
    /// A transport of its own that reuses one connection per host.
    #if AsyncHTTPClient
    static func transport() -> any Transport { AsyncHTTPClientTransport() }
    #else
    static func transport() -> any Transport { URLSessionTransport(maximumConnectionsPerHost: 1) }
    #endif

    @Test func aPostWhoseReusedConnectionIsDroppedEndsInConnectionLostAtOnce() async throws {
        try await withFaultServer { faults in
            let configuration = testConfiguration(transport: Self.transport())
            let base = faults.baseURL
            @Sendable func post(_ path: String) -> TestRequest<FaultModel> {
                TestRequest<FaultModel>(configuration: configuration) {
                    ServerRequest(
                        method: .post, baseUrl: base, relativeUrl: path, parameters: .jsonObject(["order": 7]),
                        timeout: 90)
                }
            }
            #expect((try? await post("/fault/keep-alive").performAsync()) != nil)
            let start = ContinuousClock.now

            let result = try await withTimeout(120, "the POST on the dropped connection") {
                await post("/fault/drop-on-reuse").perform().result
            }

            // Far below the timeout, with room for a loaded machine: alone this takes milliseconds,
            // in a full run on two cores up to about ten seconds (the suites start together).
            #expect((result.failure as? BaseServerError)?.code == .connectionLost, "\(result)")
            #expect(ContinuousClock.now - start < .seconds(45), "it waited for the 90 s timeout")
        }
    }

    @Test(arguments: [
        "HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n", "HTTP/3.0 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1\r\n\r\n", "HTTP/2 200\r\n\r\n",
        "HELLO GARBAGE\r\n\r\n",
    ])
    func aStatusLineThatIsNotHTTPReadsAsATransportErrorNotAnInvalidURL(raw: String) async throws {
        try await withFaultServer { faults in
            let path = faults.register(Array(raw.utf8))

            let result = try await outcome(of: faults.request(path: path, configuration: testConfiguration()))

            guard case .failure(let error) = result else {
                Issue.record("\(raw.debugDescription) succeeded")
                return
            }
            #expect(error.code == .transport || error.code == .connectionLost, "\(raw.debugDescription): \(error)")
            #expect(error.errorDescription != "The request's URL is not valid.", "\(raw.debugDescription)")
        }
    }
}
