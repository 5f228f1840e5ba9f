//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// Returns the first `count` bytes of the deterministic pattern served by `GET /download/:bytes`:
/// byte `i` is `UInt8(truncatingIfNeeded: i &* 31 &+ 7)`.
public func downloadPattern(count: Int) -> Data {
    guard count > 0 else { return Data() }
    var data = Data(count: count)
    data.withUnsafeMutableBytes { raw in
        DownloadPatternSource.fill(raw)
    }
    return data
}

/// The bytes behind `/download`: the pattern repeats every 256 bytes, so one precomputed 64 KiB
/// chunk serves every chunk of every download.
enum DownloadPatternSource {
    /// Size of the chunks `/download` writes.
    static let chunkSize = 64 * 1024
    /// Largest body `/download` agrees to send.
    static let maximumSize = 200 * 1024 * 1024

    /// The first 256 bytes of the pattern (one full period).
    static let period: [UInt8] = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    /// One 64 KiB chunk of the pattern, starting at offset 0 (any multiple of 256 gives the same bytes).
    static let chunk: ByteBuffer = {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chunkSize)
        while bytes.count < chunkSize { bytes.append(contentsOf: period) }
        return ByteBuffer(bytes: bytes)
    }()

    /// Fills `buffer` with the pattern starting at offset 0.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        period.withUnsafeBytes { periodBytes in
            var offset = 0
            while offset < buffer.count {
                let length = min(256, buffer.count - offset)
                (base + offset).copyMemory(from: periodBytes.baseAddress!, byteCount: length)
                offset += length
            }
        }
    }

    /// `X-SHA256` values already computed, by size; shared by every server in the process.
    private static let hashCache = NIOLockedValueBox<[Int: String]>([:])

    /// Hex SHA-256 of the first `count` pattern bytes, computed once per size and cached.
    static func cachedSHA256Hex(count: Int) -> String {
        if let cached = hashCache.withLockedValue({ $0[count] }) { return cached }
        let hex = sha256Hex(count: count)
        hashCache.withLockedValue { $0[count] = hex }
        return hex
    }

    /// Hex SHA-256 of the first `count` pattern bytes, computed chunk by chunk without building the body.
    static func sha256Hex(count: Int) -> String {
        var hasher = Crypto.SHA256()
        var remaining = count
        chunk.withUnsafeReadableBytes { chunkBytes in
            while remaining > 0 {
                let length = min(chunkSize, remaining)
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: chunkBytes[0..<length]))
                remaining -= length
            }
        }
        return hasher.finalize().hex
    }

    /// A streamed body of `count` pattern bytes, written in 64 KiB chunks with an exact length.
    static func body(count: Int) -> ResponseBody {
        ResponseBody(contentLength: count) { writer in
            var remaining = count
            while remaining > 0 {
                try Task.checkCancellation()
                let length = min(chunkSize, remaining)
                try await writer.write(
                    length == chunkSize ? chunk : chunk.getSlice(at: chunk.readerIndex, length: length)!)
                remaining -= length
            }
            try await writer.finish(nil)
        }
    }
}
