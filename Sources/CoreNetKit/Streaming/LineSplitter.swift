//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Cuts a body arriving in chunks of any size into lines, as a plain value with no I/O.
///
/// A line ends at `LF` or `CRLF` (``Breaks/lineFeed``), or also at a lone `CR` (``Breaks/eventStream``, the SSE
/// rule); a break split across chunks is one break. A line over ``maximumLineLength`` bytes fails with
/// `responseTooLarge`, so a body without line breaks never takes memory past that bound.
struct LineSplitter {
    enum Breaks {
        /// `LF` and `CRLF` (JSON Lines, logs).
        case lineFeed
        /// `CRLF`, `LF` and `CR` (Server-Sent Events).
        case eventStream
    }

    let breaks: Breaks
    let maximumLineLength: Int
    /// The bytes of the line that has not ended yet.
    private var partial: [UInt8] = []
    /// The last byte seen was a `CR` that ended a line: an `LF` right after it belongs to it.
    private var afterCR = false

    init(breaks: Breaks, maximumLineLength: Int) {
        self.breaks = breaks
        self.maximumLineLength = maximumLineLength
    }

    /// The lines `chunk` completes, in order, without breaks; throws `responseTooLarge` past ``maximumLineLength``.
    mutating func split(_ chunk: Data) throws -> [String] {
        var lines: [String] = []
        try chunk.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            let bytes = buffer.bindMemory(to: UInt8.self)
            var start = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x0A {
                    if !afterCR { lines.append(try line(bytes, start..<index)) }
                    afterCR = false
                    start = index + 1
                } else if byte == 0x0D, breaks == .eventStream {
                    lines.append(try line(bytes, start..<index))
                    start = index + 1
                    afterCR = true
                } else {
                    afterCR = false
                }
                index += 1
            }
            if start < bytes.count {
                guard partial.count + (bytes.count - start) <= maximumLineLength else { throw tooLong }
                partial.append(contentsOf: bytes[start..<bytes.count])
            }
        }
        return lines
    }

    /// The last line, when the body ended without a line break after it.
    mutating func finish() -> String? {
        defer { partial = [] }
        guard !partial.isEmpty else { return nil }
        var text = String(decoding: partial, as: UTF8.self)
        if breaks == .lineFeed, text.utf8.last == 0x0D { text.removeLast() }
        return text
    }

    private mutating func line(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws -> String {
        var text: String
        if partial.isEmpty {
            text = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        } else {
            guard partial.count + range.count <= maximumLineLength else { throw tooLong }
            partial.append(contentsOf: bytes[range])
            text = String(decoding: partial, as: UTF8.self)
            partial.removeAll(keepingCapacity: true)
        }
        if breaks == .lineFeed, text.utf8.last == 0x0D { text.removeLast() }
        return text
    }

    private var tooLong: BaseServerError {
        BaseServerError(
            code: .responseTooLarge,
            message: "a line of the streamed response is longer than the limit of \(maximumLineLength) bytes")
    }
}
