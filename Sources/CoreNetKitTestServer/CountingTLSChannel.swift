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
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// A Hummingbird TLS channel (HTTP/2 with HTTP/1.1 by ALPN, or HTTP/1.1 only) counting every
/// accepted connection and the protocol each one negotiated, so tests can check that many
/// requests shared one HTTP/2 connection and that a refused handshake sent nothing.
struct CountingTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    let base: Base
    let core: ServerCore

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        self.core.recordConnection()
        let future = self.base.setup(channel: channel, logger: logger)
        do {
            let operations = channel.pipeline.syncOperations
            let tls = try operations.handler(type: NIOSSLServerHandler.self)
            try operations.addHandler(ProtocolObserver(core: self.core), position: .after(tls))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return future
    }

    func handle(value: Base.Value, logger: Logger) async {
        await self.base.handle(value: value, logger: logger)
    }
}

/// Records the protocol ALPN chose once the handshake completes; passes every event on.
private final class ProtocolObserver: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Any
    let core: ServerCore

    init(core: ServerCore) { self.core = core }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated) = event as? TLSUserEvent {
            self.core.recordHandshake(protocol: negotiated ?? "http/1.1")
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// How many connections a TLS ``TestServer`` accepted and what they negotiated.
public struct ConnectionCounts: Sendable, Equatable {
    /// TCP connections accepted, handshake completed or not.
    public var accepted = 0
    /// Connections whose TLS handshake completed with `h2`.
    public var http2 = 0
    /// Connections whose TLS handshake completed with `http/1.1` (or no ALPN).
    public var http1 = 0

    /// Creates counts.
    public init(accepted: Int = 0, http2: Int = 0, http1: Int = 0) {
        self.accepted = accepted
        self.http2 = http2
        self.http1 = http1
    }
}

extension ServerCore {
    func recordConnection() {
        self.state.withLockedValue { $0.connections.accepted += 1 }
    }

    func recordHandshake(protocol negotiated: String) {
        self.state.withLockedValue { state in
            if negotiated == "h2" { state.connections.http2 += 1 } else { state.connections.http1 += 1 }
        }
    }

    func connectionCounts() -> ConnectionCounts {
        self.state.withLockedValue { $0.connections }
    }
}
