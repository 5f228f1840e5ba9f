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
