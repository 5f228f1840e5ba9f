//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A tiny raw TCP server on 127.0.0.1 (port 0) that answers `GET /fault/<name>` with bytes
/// Hummingbird would never write: connections dropped before or during a response, a status
/// line that is not HTTP, broken chunking, trailers, and faults that are valid HTTP but hostile
/// (100 KB of headers, huge or deeply nested JSON, invalid UTF-8, a redirect loop, a response
/// that never comes). Each connection serves one request and is then closed.
///
/// `GET /fault/custom/<id>` answers the raw bytes registered with ``register(_:)``, for fuzzing.
///
/// Two paths keep the connection open (any method; a body is read and dropped):
/// `/fault/keep-alive` answers `200` with the `ok` model every time, and `/fault/drop-on-reuse`
/// answers the first request on a connection so and closes the connection, unanswered, on any
/// later request: a kept-alive connection the server dropped while the client reused it.
///
/// ```swift
/// try await withFaultServer { faults in
///     let url = faults.url(.midBody)   // http://127.0.0.1:<port>/fault/mid-body
/// }
/// ```
public final class FaultServer: Sendable {
    /// The faults, by route name.
    public enum Fault: String, Sendable, CaseIterable {
        /// `200` with a small valid JSON model (`{"id":1,"name":"ok","tags":["a"]}`).
        case ok = "ok"
        /// The connection closes after the request, before any response byte.
        case drop = "drop"
        /// The connection is reset (RST) after the request, before any response byte.
        case reset = "reset"
        /// Headers promise 1,000 bytes; 20 arrive, then the connection closes.
        case midBody = "mid-body"
        /// A chunked body cut off inside a chunk.
        case midChunk = "mid-chunk"
        /// `HELLO GARBAGE` instead of a status line.
        case garbageStatus = "garbage-status"
        /// A chunk size that is not hexadecimal.
        case badChunking = "bad-chunking"
        /// Only a status line, then EOF. Aborts the process in FoundationNetworking
        /// (swift-corelibs-foundation #5285).
        case statusLineThenEOF = "status-line-eof"
        /// A valid chunked body with a trailer field. Aborts the process in FoundationNetworking
        /// (swift-corelibs-foundation #5285).
        case chunkedTrailer = "chunked-trailer"
        /// Never answers; the connection stays open until the client gives up.
        case slow = "slow"
        /// `500` with an HTML page.
        case html500 = "html500"
        /// `200` whose header block is about 100 KB.
        case hugeHeaders = "huge-headers"
        /// `200` with a valid model whose `tags` array makes the body about 1 MB.
        case hugeJSON = "huge-json"
        /// `200` with JSON nested 10,000 levels deep.
        case deepJSON = "deep-json"
        /// `200` with a JSON string holding bytes that are not UTF-8.
        case invalidUTF8 = "invalid-utf8"
        /// `302` to itself, forever.
        case redirectLoop = "redirect-loop"
        /// `401` with `WWW-Authenticate: Basic realm="x"` and a JSON error body.
        case basicChallenge = "basic-challenge"
        /// `200` announcing 1,000,000 bytes; 200,000 arrive, then the connection stays open and
        /// silent.
        case stalledBody = "stalled-body"
        /// `200` announcing 100 bytes; none arrive, and the connection stays open and silent.
        case headOnly = "head-only"
        /// `200` with the `ok` model: its head at once, its body 300 ms later; the connection
        /// then stays open.
        case lateBody = "late-body"
        /// `200` announcing 100,000 bytes, sent one byte every 200 ms.
        case trickledBody = "trickled-body"
        /// `200` announcing 10,000 bytes; a valid 34-byte JSON model arrives and the connection
        /// stays open.
        case lyingLength = "lying-length"
        /// `103 Early Hints` every 100 ms, forever; no final response.
        case endlessEarlyHints = "endless-103"
        /// The status line and then one byte of the header block every 200 ms, forever.
        case slowHeaders = "slow-headers"
        /// `200` with `Content-Encoding: gzip`: about 6.8 MB on the wire that inflate to 1 GiB of
        /// zero bytes (its CRC is not that of the data: no client gets that far).
        case gzipBomb = "gzip-bomb"
        /// The same as ``gzipBomb`` with 64 MiB inflated (about 430 KB on the wire).
        case smallGzipBomb = "gzip-bomb-small"
        /// `200` with `Content-Encoding: gzip`: a valid member of about 300 bytes that inflates to
        /// 64 KiB of zero bytes, more than its `Content-Length` counts.
        case gzipZeros = "gzip-zeros"
        /// `200` with `Content-Encoding: gzip`: a valid member of about 6.6 KB that inflates to
        /// 1 MiB of zero bytes (more than 150 times its size).
        case gzipMebibyte = "gzip-zeros-1m"
        /// `200` with a 1 GiB body of `a` bytes, written as fast as the client reads it.
        case gigabyte = "gigabyte"
        /// `200` with two `Set-Cookie`, two `WWW-Authenticate` and two `Link` fields, and the
        /// `ok` model.
        case repeatedFields = "repeated-fields"
    }

    private let channel: any Channel
    private let children: ChildChannels
    private let accepted: AcceptedConnections
    private let received: AcceptedConnections
    private let registry: NIOLockedValueBox<[Int: [UInt8]]>
    private let nextId = NIOLockedValueBox(0)

    /// The bound port.
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL

    private init(
        channel: any Channel, children: ChildChannels, accepted: AcceptedConnections, received: AcceptedConnections,
        registry: NIOLockedValueBox<[Int: [UInt8]]>, port: Int
    ) {
        self.channel = channel
        self.children = children
        self.accepted = accepted
        self.received = received
        self.registry = registry
        self.port = port
        self.baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts listening on 127.0.0.1, on an ephemeral port.
    public static func start() async throws -> FaultServer {
        let children = ChildChannels()
        let accepted = AcceptedConnections()
        let received = AcceptedConnections()
        let registry = NIOLockedValueBox<[Int: [UInt8]]>([:])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                children.add(child)
                accepted.accept()
                return child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(FaultHandler(registry: registry, received: received))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw TestServerError.startFailed("The fault server's socket has no local port")
        }
        return FaultServer(
            channel: channel, children: children, accepted: accepted, received: received, registry: registry, port: port
        )
    }

    /// Returns once `count` connections have been accepted since the server started.
    public func connectionsAccepted(_ count: Int) async {
        await accepted.wait(for: count)
    }

    /// Returns once `count` request heads have been received (and answered, or their fault
    /// started) since the server started.
    public func requestsReceived(_ count: Int) async {
        await received.wait(for: count)
    }

    /// How many connections are open now.
    public var openConnections: Int { children.count }

    /// Returns when every connection open now has closed.
    public func connectionsClosed() async {
        for child in children.snapshot() { try? await child.closeFuture.get() }
    }

    /// Stops listening and closes every open connection. Idempotent.
    public func stop() async {
        try? await channel.close()
        for child in children.drain() { try? await child.close() }
    }

    /// The URL of `fault`.
    public func url(_ fault: Fault) -> URL {
        baseURL.appendingPathComponent("fault/\(fault.rawValue)")
    }

    /// Registers a raw response (status line, headers and body exactly as sent; the connection
    /// closes after it) and returns the path that answers it: `/fault/custom/<id>`.
    public func register(_ response: [UInt8]) -> String {
        let id = nextId.withLockedValue { id -> Int in
            id += 1
            return id
        }
        registry.withLockedValue { $0[id] = response }
        return "/fault/custom/\(id)"
    }
}

/// Runs `body` with a started ``FaultServer`` and stops it afterwards.
public func withFaultServer<T: Sendable>(_ body: (FaultServer) async throws -> T) async throws -> T {
    try await withStarted(try await FaultServer.start(), body)
}

extension FaultServer: StoppableServer {}

/// The connections a ``FaultServer`` has accepted and not yet seen closed.
final class ChildChannels: Sendable {
    private let channels = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        channels.withLockedValue { $0[key] = channel }
        channel.closeFuture.whenComplete { [channels] _ in
            _ = channels.withLockedValue { $0.removeValue(forKey: key) }
        }
    }

    var count: Int { channels.withLockedValue { $0.count } }

    func snapshot() -> [any Channel] { channels.withLockedValue { Array($0.values) } }

    func drain() -> [any Channel] {
        channels.withLockedValue { channels in
            defer { channels = [:] }
            return Array(channels.values)
        }
    }
}

/// Counts accepted connections and wakes those who wait for a number of them.
final class AcceptedConnections: Sendable {
    private struct State {
        var count = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = NIOLockedValueBox(State())

    func accept() {
        let ready: [CheckedContinuation<Void, Never>] = state.withLockedValue { state in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    func wait(for count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = state.withLockedValue { state in
                if state.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
