//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import NIOSSL
import ServiceLifecycle

/// A real HTTP/1.1 loopback server (Hummingbird) with deterministic routes for CoreNetKit's
/// tests, demo and benchmarks. Every request is counted by method and path (``hits(_:_:)``).
///
/// Routes (JSON bodies use `Content-Type: application/json; charset=utf-8`; unknown routes answer
/// `404 {"code":"NOT_FOUND",...}`; HEAD works on every GET route):
/// - Demo API: `GET /users`, `GET /users/:id`, `POST /users` (201, echo + `"id":100`),
///   `POST /orders` (always 422 `ORDER_LIMIT`).
/// - Generic: `ANY /echo[/...]`, `GET /status/:code?body=&type=`, `/html500`, `/malformed`, `/text`,
///   `/no-content`, `/count`, `/body-error`, `/delay/:ms`, `ANY /hold/:gate`,
///   `/redirect?to=&status=`, `/counter/:key`, `/bench/page`.
/// - Cache: `GET /cache/etag/:key` (ETag, Last-Modified, 304s; ``bumpVersion(_:)``),
///   `/cache/no-store`, `/cache/vary`.
/// - Auth (``auth``): `POST /auth/refresh`, `POST /auth/login`, `ANY /protected/:id`,
///   `ANY /challenge/basic` (401 with `WWW-Authenticate: Basic`); rotating refresh tokens
///   (``family``): `POST /family/refresh`, `ANY /family/protected/:id`.
/// - Pagination: `GET /items?offset=&limit=&count=&total=`, `GET /feed?cursor=&limit=`
///   (``insertFeedItems(_:)``).
/// - Files: `POST /upload` (multipart/form-data, described part by part with SHA-256),
///   `POST /upload/raw`, `GET /download/:bytes` (``downloadPattern(count:)``, `X-SHA256`),
///   `GET /resumable/:key?bytes=` (Range, If-Range, 206/416; ``replaceResumable(_:)``),
///   `POST /stream/upload/:gate` (hashes the body, then waits at the gate).
///
/// ```swift
/// try await withTestServer { server in
///     let url = server.baseURL.appendingPathComponent("users")
///     // ... request it, then:
///     #expect(server.hits("GET", "/users") == 1)
/// }
/// ```
public final class TestServer: Sendable {
    private let core: ServerCore
    private let serverTask: Task<Void, Never>
    private let group: ServiceGroup

    /// The bound port (the ephemeral one when started with port 0).
    public let port: Int
    /// `http://<host>:<port>`, without a trailing slash.
    public let baseURL: URL

    private init(
        core: ServerCore, serverTask: Task<Void, Never>, group: ServiceGroup, host: String, port: Int, scheme: String
    ) {
        self.core = core
        self.serverTask = serverTask
        self.group = group
        self.port = port
        let hostPart = host.contains(":") ? "[\(host)]" : host
        self.baseURL = URL(string: "\(scheme)://\(hostPart):\(port)")!
    }

    deinit {
        self.core.releaseAllGatesForShutdown()
        self.serverTask.cancel()
    }

    /// Starts a server on `host`:`port` (port 0 picks an ephemeral port) and returns once it
    /// accepts connections. Throws ``TestServerError/startFailed(_:)`` when it cannot bind.
    ///
    /// With `tls`, it serves HTTPS with that identity, HTTP/2 or HTTP/1.1 as the client's ALPN
    /// asks (only HTTP/1.1 when `http2` is `false`), and counts connections
    /// (``connectionCounts()``); ``baseURL`` is then `https://…`.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, tls: TestIdentity? = nil, http2: Bool = true
    ) async throws -> TestServer {
        let core = ServerCore()
        let startup = StartupSignal()
        var app = Application(
            responder: TestResponder(core: core),
            server: try tls.map { try Self.tlsServer($0, http2: http2, core: core) } ?? .http1(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                if let boundPort = channel.localAddress?.port {
                    startup.succeed(boundPort)
                } else {
                    startup.fail(.startFailed("The listening socket has no local port"))
                }
            }
        )
        app.logger.logLevel = .critical
        // Run under a service group so that `stop()` can shut down gracefully: connections are
        // closed by the server rather than torn down by cancellation, which could deinit a
        // response writer that was never finished.
        let group = ServiceGroup(
            services: [app], gracefulShutdownSignals: [], cancellationSignals: [], logger: app.logger)
        let serverTask = Task {
            do {
                try await group.run()
                startup.fail(.startFailed("The server stopped before it started listening"))
            } catch {
                startup.fail(.startFailed("Could not start the test server on \(host):\(port): \(error)"))
            }
        }
        let boundPort = try await withTaskCancellationHandler {
            try await startup.wait()
        } onCancel: {
            serverTask.cancel()
        }
        return TestServer(
            core: core, serverTask: serverTask, group: group, host: host, port: boundPort,
            scheme: tls == nil ? "http" : "https")
    }

    /// HTTP/2 and HTTP/1.1 (or HTTP/1.1 only) over TLS with `identity`, counting connections.
    private static func tlsServer(_ identity: TestIdentity, http2: Bool, core: ServerCore) throws
        -> HTTPServerBuilder
    {
        let chain = try identity.certificateChain.map {
            NIOSSLCertificateSource.certificate(try NIOSSLCertificate(bytes: [UInt8]($0), format: .der))
        }
        let key = try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain, privateKey: .privateKey(key))
        // On stop, an idle keep-alive client may never answer the server's close_notify; do not
        // wait the default 5 s for it.
        configuration.shutdownTimeout = .milliseconds(100)
        return HTTPServerBuilder { [configuration] responder in
            if http2 {
                return CountingTLSChannel(
                    base: try HTTP2UpgradeChannel(tlsConfiguration: configuration, responder: responder), core: core)
            }
            var http1 = configuration
            http1.applicationProtocols = ["http/1.1"]
            return CountingTLSChannel(
                base: try TLSChannel(HTTP1Channel(responder: responder), tlsConfiguration: http1), core: core)
        }
    }

    /// Connections accepted so far and what they negotiated (a TLS server only).
    public func connectionCounts() -> ConnectionCounts {
        self.core.connectionCounts()
    }

    /// Stops listening and closes every connection. Requests held at gates are released first,
    /// so this never hangs. When it returns, connecting to ``port`` is refused. Idempotent.
    public func stop() async {
        self.core.releaseAllGatesForShutdown()
        await self.group.triggerGracefulShutdown()
        // A client that keeps a request open (a slow route) must not hold the test forever:
        // after 10 seconds the server is cancelled instead.
        let serverTask = self.serverTask
        let deadline = Task {
            try await Task.sleep(for: .seconds(10))
            serverTask.cancel()
        }
        await serverTask.value
        deadline.cancel()
    }

    // MARK: Hit counters

    /// How many requests with `method` (e.g. `"GET"`) reached `path` (without query, e.g. `"/users/1"`).
    public func hits(_ method: String, _ path: String) -> Int {
        self.core.hits(method: method, path: path)
    }

    /// How many requests of any method reached `path` (without query).
    public func hits(path: String) -> Int {
        self.core.hits(path: path)
    }

    /// How many requests reached the server, whatever their route.
    public func totalHits() -> Int {
        self.core.totalHits()
    }

    /// Sets every hit counter back to zero.
    public func resetHits() {
        self.core.resetHits()
    }

    // MARK: Gates

    /// How many requests reached `gate` so far (held or not).
    public func arrivals(at gate: String) -> Int {
        self.core.arrivals(at: gate)
    }

    /// Waits until `gate` has seen at least `count` arrivals; returns at once if it already has.
    /// Throws ``TestServerError/timedOut(_:)`` after `timeout`, or `CancellationError` when cancelled.
    public func waitForArrivals(at gate: String, count: Int, timeout: Duration = .seconds(60)) async throws {
        try await self.core.waitForArrivals(at: gate, count: count, timeout: timeout)
    }

    /// Releases every request held at `gate` and lets all future ones through until ``close(_:)``.
    public func release(_ gate: String) {
        self.core.release(gate)
    }

    /// Makes `gate` hold future requests again.
    public func close(_ gate: String) {
        self.core.close(gate)
    }

    // MARK: Route state

    /// Token state of `/auth/*` and `/protected/*`.
    public var auth: AuthState {
        self.core.auth
    }

    /// Rotating-token state of `/family/*`: single-use refresh tokens, reuse revokes the family.
    public var family: FamilyAuthState {
        self.core.family
    }

    /// Effects of `POST /outbox/apply/:queue/:seq`, counted per `Idempotency-Key`.
    public var outbox: OutboxLedger {
        self.core.outbox
    }

    /// Inserts `count` new items at the top of `/feed` (ids max+1...max+count).
    public func insertFeedItems(_ count: Int) {
        self.core.insertFeedItems(count)
    }

    /// Moves `/cache/etag/:key` to its next version, changing its ETag, Last-Modified and body.
    public func bumpVersion(_ key: String) {
        self.core.bumpVersion(key)
    }

    /// Moves `/cache/fresh/:key` to its next version, changing its ETag.
    public func bumpFreshVersion(_ key: String) {
        self.core.bumpVersion("fresh/" + key)
    }

    /// Replaces the file behind `/resumable/:key` with its next version: other bytes, another
    /// ETag and Last-Modified.
    public func replaceResumable(_ key: String) {
        self.core.bumpVersion("resumable/" + key)
    }
}
