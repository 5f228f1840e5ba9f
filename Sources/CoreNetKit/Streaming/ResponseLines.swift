//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension ResponseStream {
    /// The body as lines of UTF-8 text, without their line breaks (`LF` or `CRLF`).
    ///
    /// A last line without a line break is read too; non-UTF-8 bytes read as U+FFFD. A line longer than
    /// ``NetworkConfiguration/maximumResponseBodySize`` throws ``BaseServerError/Code-swift.struct/responseTooLarge``.
    public var lines: ResponseLines {
        ResponseLines(stream: self, breaks: .lineFeed)
    }

    /// The body as JSON Lines (newline-delimited JSON): each non-blank line decoded as one `Element`, as it arrives.
    ///
    /// A line that doesn't decode throws ``BaseServerError/Code-swift.struct/cantMapping`` naming its line number, and
    /// the stream ends. `decoder` defaults to the configuration's ``NetworkConfiguration/decoder``.
    public func jsonLines<Element: Decodable & Sendable>(
        of type: Element.Type = Element.self, decoder: JSONDecoder? = nil
    ) -> JSONLines<Element> {
        JSONLines(lines: lines, decoder: decoder ?? configuration.decoder)
    }
}

/// A streamed body read line by line: see ``ResponseStream/lines``.
public struct ResponseLines: AsyncSequence, Sendable {
    public typealias Element = String

    let stream: ResponseStream
    let breaks: LineSplitter.Breaks

    /// Sends the request and returns an iterator over the body's lines.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            chunks: stream.makeAsyncIterator(),
            splitter: LineSplitter(breaks: breaks, maximumLineLength: stream.configuration.maximumResponseBodySize))
    }

    /// Reads a streamed body line by line. Dropping it before the end closes the connection.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: ResponseStream.AsyncIterator
        var splitter: LineSplitter
        fileprivate var pending: [String] = []
        fileprivate var index = 0
        fileprivate var ended = false

        /// The next line, `nil` at the end of the body; throws the ``BaseServerError`` the request ended with.
        public mutating func next() async throws -> String? {
            while index == pending.count {
                guard !ended else { return nil }
                guard let chunk = try await chunks.next() else {
                    ended = true
                    return splitter.finish()
                }
                pending = try splitter.split(chunk)
                index = 0
            }
            defer { index += 1 }
            return pending[index]
        }
    }
}

/// A streamed body read as JSON Lines: see ``ResponseStream/jsonLines(of:decoder:)``.
public struct JSONLines<Element: Decodable & Sendable>: AsyncSequence, Sendable {
    let lines: ResponseLines
    let decoder: JSONDecoder

    /// Sends the request and returns an iterator over the decoded lines.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: lines.makeAsyncIterator(), decoder: decoder)
    }

    /// Decodes a streamed body line by line. Dropping it before the end closes the connection.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var lines: ResponseLines.AsyncIterator
        let decoder: JSONDecoder
        fileprivate var number = 0

        /// The next element, `nil` at the end; throws ``BaseServerError/Code-swift.struct/cantMapping`` for a line
        /// that doesn't decode, or the ``BaseServerError`` the request ended with.
        public mutating func next() async throws -> Element? {
            while let line = try await lines.next() {
                number += 1
                guard line.contains(where: { !$0.isWhitespace }) else { continue }
                do {
                    return try decoder.decode(Element.self, from: Data(line.utf8))
                } catch {
                    throw BaseServerError.cantMapping(
                        keyPath: "line \(number)", reason: "it is not a JSON \(Element.self): \(error)",
                        underlying: error)
                }
            }
            return nil
        }
    }
}

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
        try chunk.withUnsafeBytes { bytes in
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

    private mutating func line(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) throws -> String {
        var text: String
        if partial.isEmpty {
            text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
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
