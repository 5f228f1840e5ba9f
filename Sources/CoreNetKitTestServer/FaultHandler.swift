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

/// Reads one request head from a raw connection and answers it with a ``FaultServer/Fault``.
final class FaultHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let registry: NIOLockedValueBox<[Int: [UInt8]]>
    private var head: [UInt8] = []
    private var answered = false
    /// Requests answered on this connection while keeping it open.
    private var keptAlive = 0
    /// Body bytes of a kept-alive request still to be read and dropped.
    private var bodyToSkip = 0
    /// Whether a kept-alive request waits for the rest of its body before it is answered.
    private var replyPending = false

    private let received: AcceptedConnections

    init(registry: NIOLockedValueBox<[Int: [UInt8]]>, received: AcceptedConnections) {
        self.registry = registry
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        let buffer = unwrapInboundIn(data)
        head.append(contentsOf: buffer.readableBytesView)
        while !answered {
            if bodyToSkip > 0 {
                let skipped = min(bodyToSkip, head.count)
                head.removeFirst(skipped)
                bodyToSkip -= skipped
                if bodyToSkip > 0 { return }
            }
            if replyPending {
                // Answered once the whole request arrived, as a server that reads the body does.
                replyPending = false
                var reply = context.channel.allocator.buffer(capacity: FaultResponses.keptAlive.count)
                reply.writeBytes(FaultResponses.keptAlive)
                context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
            }
            guard let end = FaultHandler.headEnd(head) else {
                if head.count > 64 * 1024 { context.close(promise: nil) }
                return
            }
            let requestHead = Array(head[..<end])
            head.removeFirst(end)
            let path = FaultHandler.path(of: requestHead)
            if path == "/fault/keep-alive" || (path == "/fault/drop-on-reuse" && keptAlive == 0) {
                // Answered on a connection that stays open, after its body (read and dropped).
                keptAlive += 1
                bodyToSkip = FaultHandler.contentLength(of: requestHead)
                replyPending = true
                continue
            }
            answered = true
            if path == "/fault/drop-on-reuse" {
                context.close(promise: nil)  // a request on the reused connection: dropped unanswered
            } else {
                respond(to: path, context: context)
            }
            received.accept()
        }
    }

    /// The `Content-Length` of a request head, 0 without one.
    static func contentLength(of head: [UInt8]) -> Int {
        let text = String(decoding: head, as: UTF8.self).lowercased()
        for line in text.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(to path: String, context: ChannelHandlerContext) {
        let name = path.hasPrefix("/fault/") ? String(path.dropFirst("/fault/".count)) : ""
        if name.hasPrefix("custom/"), let id = Int(name.dropFirst("custom/".count)) {
            let bytes = registry.withLockedValue { $0[id] } ?? FaultResponses.notFound
            writeAndClose(bytes, context: context)
            return
        }
        switch FaultServer.Fault(rawValue: name) {
        case .drop?:
            context.close(promise: nil)
        case .reset?:
            // SO_LINGER 0: close() sends RST instead of FIN.
            let channel = context.channel
            guard let provider = channel as? any SocketOptionProvider else {
                channel.close(promise: nil)
                return
            }
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        case .slow?:
            break  // never answer; the client's timeout or cancellation closes the connection
        case .stalledBody?, .headOnly?, .lateBody?, .trickledBody?, .lyingLength?, .endlessEarlyHints?, .slowHeaders?,
            .gigabyte?:
            TimedFaults.start(FaultServer.Fault(rawValue: name)!, on: context.channel)
        case let fault?:
            writeAndClose(FaultResponses.bytes(for: fault), context: context)
        case nil:
            writeAndClose(FaultResponses.notFound, context: context)
        }
    }

    private func writeAndClose(_ bytes: [UInt8], context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// The index just past the `\r\n\r\n` that ends the head, if it arrived.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// The path of the request line, without its query.
    static func path(of head: [UInt8]) -> String {
        let line = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2 else { return "" }
        let target = parts[1]
        return String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }
}

/// The bytes each fault sends.
enum FaultResponses {
    static let okBody = #"{"id":1,"name":"ok","tags":["a"]}"#

    /// `200` with the `ok` model, and the connection kept open for the next request.
    static let keptAlive: [UInt8] =
        Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(okBody.utf8.count)\r\n\r\n".utf8)
        + Array(okBody.utf8)

    static let notFound = complete(
        status: "404 Not Found", type: "application/json", body: Array(#"{"code":"NOT_FOUND"}"#.utf8))

    /// The 1 GiB bomb's whole response, made once: the 6.8 MB of it are not copied again for each
    /// request (the memory tests measure the client in the same process).
    static let gzipBomb = gzipResponse(GzipBomb.make(inflatedSize: 1 << 30))

    static func gzipResponse(_ body: [UInt8]) -> [UInt8] {
        Array(
            ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n").utf8) + body
    }

    static func bytes(for fault: FaultServer.Fault) -> [UInt8] {
        switch fault {
        case .ok: return complete(status: "200 OK", type: "application/json", body: Array(okBody.utf8))
        case .drop, .reset, .slow, .stalledBody, .headOnly, .lateBody, .trickledBody, .lyingLength, .endlessEarlyHints,
            .slowHeaders, .gigabyte:
            return []
        case .gzipBomb: return gzipBomb
        case .smallGzipBomb: return gzipResponse(GzipBomb.smallBytes)
        case .gzipZeros: return gzipResponse(GzipBomb.zeros)
        case .gzipMebibyte: return gzipResponse(GzipBomb.make(inflatedSize: 1 << 20, validCRC: true))
        case .repeatedFields:
            return complete(
                status: "200 OK", type: "application/json", body: Array(okBody.utf8),
                extraHeaders: "Set-Cookie: a=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT\r\n"
                    + "WWW-Authenticate: Bearer realm=\"api\"\r\nLink: </page/2>; rel=\"next\"\r\n"
                    + "Set-Cookie: b=2; Path=/\r\nWWW-Authenticate: Basic realm=\"x\"\r\n"
                    + "Link: </page/9>; rel=\"last\"\r\n")
        case .midBody:
            return Array(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"id\":1,\"name\":\"mid"
                    .utf8)
        case .midChunk:
            return Array(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n{\"id\":1,"
                    .utf8)
        case .garbageStatus: return Array("HELLO GARBAGE\r\n\r\n".utf8)
        case .badChunking:
            return Array(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\nabc\r\n0\r\n\r\n".utf8)
        case .statusLineThenEOF: return Array("HTTP/1.1 200 OK\r\n".utf8)
        case .chunkedTrailer:
            let body = okBody
            return Array(
                ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n"
                    + "Connection: close\r\n\r\n" + String(body.utf8.count, radix: 16) + "\r\n" + body
                    + "\r\n0\r\nX-Checksum: 1234\r\n\r\n").utf8)
        case .html500:
            return complete(
                status: "500 Internal Server Error", type: "text/html; charset=utf-8",
                body: Array("<html><body><h1>Internal Server Error</h1></body></html>".utf8))
        case .hugeHeaders: return hugeHeaders
        case .hugeJSON: return hugeJSON
        case .deepJSON: return deepJSON
        case .invalidUTF8:
            let body: [UInt8] =
                Array(#"{"id":1,"name":""#.utf8) + [0xFF, 0xFE, 0xC3, 0x28] + Array(#"","tags":[]}"#.utf8)
            return complete(status: "200 OK", type: "application/json", body: body)
        case .redirectLoop:
            return Array(
                "HTTP/1.1 302 Found\r\nLocation: /fault/redirect-loop\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .utf8)
        case .basicChallenge:
            var bytes = Array("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\n".utf8)
            let body = Array(#"{"code":"UNAUTHORIZED","message":"Sign in"}"#.utf8)
            bytes += Array(
                "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)
            return bytes + body
        }
    }

    /// A complete response with `Content-Length` and `Connection: close`.
    static func complete(status: String, type: String?, body: [UInt8], extraHeaders: String = "") -> [UInt8] {
        var head = "HTTP/1.1 \(status)\r\n"
        if let type { head += "Content-Type: \(type)\r\n" }
        head += extraHeaders + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    private static let hugeHeaders: [UInt8] = {
        let value = String(repeating: "v", count: 1000)
        let headers = (0..<100).map { "X-Filler-\($0): \(value)\r\n" }.joined()
        return complete(status: "200 OK", type: "application/json", body: Array(okBody.utf8), extraHeaders: headers)
    }()

    private static let hugeJSON: [UInt8] = {
        let tag = "\"" + String(repeating: "t", count: 60) + "\""
        let tags = Array(repeating: tag, count: 16_000).joined(separator: ",")
        let body = #"{"id":2,"name":"huge","tags":["# + tags + "]}"
        return complete(status: "200 OK", type: "application/json", body: Array(body.utf8))
    }()

    private static let deepJSON: [UInt8] = {
        let depth = 10_000
        let body =
            #"{"id":3,"name":"deep","tags":[],"nested":"# + String(repeating: "[", count: depth)
            + String(repeating: "]", count: depth) + "}"
        return complete(status: "200 OK", type: "application/json", body: Array(body.utf8))
    }()
}
