//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Errors thrown by ``TestServer``.
public enum TestServerError: Error, Sendable {
    /// A wait (e.g. `waitForArrivals(at:count:timeout:)`) did not finish in time; the payload says what was awaited.
    case timedOut(String)
    /// The server could not start (e.g. the port was taken); the payload carries the underlying error.
    case startFailed(String)
}

/// Starts a ``TestServer`` on an ephemeral loopback port, runs `body` with it and always stops it,
/// whether `body` returns or throws.
public func withTestServer<T: Sendable>(_ body: (TestServer) async throws -> T) async throws -> T {
    try await withStarted(try await TestServer.start(), body)
}

/// Runs `body` with a new HTTPS ``TestServer`` on 127.0.0.1 that presents `identity` (HTTP/2 and
/// HTTP/1.1 by ALPN, or HTTP/1.1 only when `http2` is `false`), and always stops it afterwards.
public func withTLSTestServer<T: Sendable>(
    _ identity: TestIdentity, http2: Bool = true, _ body: (TestServer) async throws -> T
) async throws -> T {
    try await withStarted(try await TestServer.start(tls: identity, http2: http2), body)
}

/// Runs `body` with `server` and always stops the server afterwards, whether `body` returns or
/// throws.
func withStarted<Server: StoppableServer, T: Sendable>(
    _ server: Server, _ body: (Server) async throws -> T
) async throws -> T {
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A loopback server the tests start and must stop.
protocol StoppableServer: Sendable {
    func stop() async
}

extension TestServer: StoppableServer {}
