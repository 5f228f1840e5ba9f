//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// The faults that take time: bytes written on a schedule of the server's event loop (real
/// time), until the client closes the connection.
enum TimedFaults {
    static func start(_ fault: FaultServer.Fault, on channel: any Channel) {
        switch fault {
        case .stalledBody:
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n"
            write(Array(head.utf8) + [UInt8](repeating: 0x61, count: 200_000), to: channel)
        case .headOnly:
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            write(Array(head.utf8), to: channel)
        case .lateBody:
            let body = FaultResponses.okBody
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            write(Array(head.utf8), to: channel)
            channel.eventLoop.scheduleTask(in: .milliseconds(300)) {
                if channel.isActive { write(Array(body.utf8), to: channel) }
            }
        case .lyingLength:
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n"
            write(Array((head + FaultResponses.okBody).utf8), to: channel)
        case .trickledBody:
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n"
            write(Array(head.utf8), to: channel)
            repeatEvery(.milliseconds(200), on: channel) { [0x61] }
        case .endlessEarlyHints:
            repeatEvery(.milliseconds(100), on: channel) {
                Array("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n".utf8)
            }
        case .slowHeaders:
            write(Array("HTTP/1.1 200 OK\r\nX-Slow: ".utf8), to: channel)
            repeatEvery(.milliseconds(200), on: channel) { [0x61] }
        case .gigabyte:
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(1 << 30)\r\n\r\n"
            write(Array(head.utf8), to: channel)
            let chunk = channel.allocator.buffer(repeating: 0x61, count: 1 << 20)
            writeChunks(remaining: 1 << 30, chunk: chunk, to: channel)
        default:
            channel.close(promise: nil)
        }
    }

    /// Writes `chunk` until `remaining` bytes went out, each write after the previous one was
    /// flushed: the client's reading pace sets the server's.
    private static func writeChunks(remaining: Int, chunk: ByteBuffer, to channel: any Channel) {
        guard remaining > 0, channel.isActive else { return }
        let piece = chunk.getSlice(at: chunk.readerIndex, length: min(remaining, chunk.readableBytes)) ?? chunk
        channel.writeAndFlush(piece).whenSuccess {
            writeChunks(remaining: remaining - piece.readableBytes, chunk: chunk, to: channel)
        }
    }

    private static func write(_ bytes: [UInt8], to channel: any Channel) {
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    /// Writes `bytes()` every `interval` until the connection closes.
    private static func repeatEvery(
        _ interval: TimeAmount, on channel: any Channel, _ bytes: @escaping @Sendable () -> [UInt8]
    ) {
        let task = channel.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
            guard channel.isActive else {
                task.cancel()
                return
            }
            write(bytes(), to: channel)
        }
        channel.closeFuture.whenComplete { _ in task.cancel() }
    }
}

/// A gzip member whose DEFLATE stream (one block of fixed Huffman codes: a literal zero, then
/// back-references of 258 bytes at distance 1) inflates to exactly 1 GiB of zero bytes from
/// about 6.8 MB. Built once, on first use.
enum GzipBomb {
    /// Inflates to 1 GiB.
    static let bytes: [UInt8] = make(inflatedSize: 1 << 30)
    /// Inflates to about 64 MiB.
    static let smallBytes: [UInt8] = make(inflatedSize: 64 << 20)
    /// A valid member (its CRC is right) that inflates to 64 KiB.
    static let zeros: [UInt8] = make(inflatedSize: 64 << 10, validCRC: true)

    /// A member that inflates to exactly `inflatedSize` zero bytes: runs of 258, then the rest
    /// as one shorter run (3 to 10 bytes) or as literals.
    static func make(inflatedSize: Int, validCRC: Bool = false) -> [UInt8] {
        var writer = BitWriter(capacity: inflatedSize / 150 + 64)
        writer.write(1, bits: 1)  // BFINAL
        writer.write(1, bits: 2)  // BTYPE 01: fixed Huffman codes
        writer.writeCode(0x30, length: 8)  // literal 0
        let repeats = (inflatedSize - 1) / 258
        // Length 258 (code 285, 8 bits) then distance 1 (code 0, 5 bits), as one 13-bit group.
        let pair = BitWriter.reversed(0xC5, length: 8)
        for _ in 0..<repeats {
            writer.write(pair, bits: 13)
        }
        let rest = (inflatedSize - 1) - repeats * 258  // 1 GiB: 3 bytes, length code 257
        if rest >= 3 && rest <= 10 {
            writer.writeCode(UInt32(rest - 2), length: 7)
            writer.writeCode(0, length: 5)
        } else {
            for _ in 0..<rest { writer.writeCode(0x30, length: 8) }  // literal zeros
        }
        writer.writeCode(0, length: 7)  // end of block (256)
        let header: [UInt8] = [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF]
        let size = UInt32(truncatingIfNeeded: inflatedSize)
        let crc = validCRC ? crc32OfZeros(inflatedSize) : 0
        let trailer =
            (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
        return header + writer.finish() + trailer
    }

    /// The CRC-32 (gzip's) of `count` zero bytes.
    private static func crc32OfZeros(_ count: Int) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for _ in 0..<count {
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Packs bits least significant first, as DEFLATE does.
    private struct BitWriter {
        var bytes: [UInt8] = []
        var accumulator: UInt64 = 0
        var count = 0

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func write(_ value: UInt32, bits: Int) {
            accumulator |= UInt64(value) << UInt64(count)
            count += bits
            while count >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator >>= 8
                count -= 8
            }
        }

        /// A Huffman code, whose bits go most significant first.
        mutating func writeCode(_ code: UInt32, length: Int) {
            write(Self.reversed(code, length: length), bits: length)
        }

        static func reversed(_ code: UInt32, length: Int) -> UInt32 {
            var reversed: UInt32 = 0
            for bit in 0..<length where code & (1 << UInt32(bit)) != 0 {
                reversed |= 1 << UInt32(length - 1 - bit)
            }
            return reversed
        }

        mutating func finish() -> [UInt8] {
            if count > 0 { bytes.append(UInt8(truncatingIfNeeded: accumulator)) }
            return bytes
        }
    }
}
