//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if AsyncHTTPClient
import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

/// HTTP/2 through AsyncHTTPClientTransport: ALPN picks it over TLS, and concurrent requests to
/// one host are streams of one connection.
@Suite(.timeLimit(.minutes(3))) struct HTTP2ConnectionTests {
    @Test func concurrentRequestsToOneHostShareOneHTTP2Connection() async throws {
        try await withTLSTestServer(testPKI.valid) { server in
            let transport = try trustTransport(try trustingTestAuthority())
            _ = try await fetchJSON("/users/1", on: server, through: transport).get()  // the connection

            let failures = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let result = try await fetchJSON("/users/\(index % 5 + 1)", on: server, through: transport)
                        return (try? result.get()) == nil
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }

            #expect(failures == 0)
            #expect(server.totalHits() == 65)
            #expect(server.connectionCounts() == ConnectionCounts(accepted: 1, http2: 1, http1: 0))
        }
    }
}
#endif
