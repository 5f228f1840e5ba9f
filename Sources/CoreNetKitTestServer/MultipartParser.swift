//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation

/// A streaming `multipart/form-data` parser (RFC 7578 / RFC 2046). Bodies are fed chunk by chunk;
/// part contents are never stored, only counted and hashed, so memory stays bounded whatever the
/// upload size. Part headers are parsed by hand (`Content-Disposition` `name`, `filename`,
/// `filename*`, `Content-Type` and any other header).
///
/// Kept instead of vapor/multipart-kit on purpose: MultipartKit 4.7.1's `MultipartParser` cuts
/// the body at every CR byte (a new `ByteBuffer` about every 256 bytes of binary data) through
/// a closure per byte, which in the debug build the tests run took over 30 s for the 50 MB
/// upload test (it timed out over AsyncHTTPClient). This one finds the boundary with `memchr`.
struct MultipartParser {
    /// Why a body is not valid multipart.
    struct Failure: Error {
        let message: String
    }

    /// One finished part.
    struct Part {
        let name: String
        let filename: String?
        let contentType: String?
        /// Headers with lowercased names, in order; repeated names joined with ", ".
        let headers: [(String, String)]
        var size = 0
        var hasher = Crypto.SHA256()
    }

    private enum Stage {
        case preamble, afterDelimiter, headers, body, epilogue
    }

    private static let maximumHeaderBlock = 16 * 1024
    private static let headerTerminator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]

    /// `CRLF--boundary`.
    private let delimiter: [UInt8]
    /// Unprocessed bytes; starts with a virtual CRLF so a body that opens with `--boundary` matches.
    private var pending: [UInt8] = [0x0D, 0x0A]
    private var stage = Stage.preamble
    private var current: Part?
    /// Finished parts, in order.
    private(set) var parts: [Part] = []

    /// Creates a parser for `boundary` (the `boundary` parameter of the Content-Type).
    init(boundary: String) throws(Failure) {
        guard (1...200).contains(boundary.utf8.count) else { throw Failure(message: "Invalid boundary length") }
        self.delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Feeds the next chunk of the body.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        if self.stage == .epilogue { return }
        self.pending.append(contentsOf: bytes)
        var buffer = self.pending
        self.pending = []
        let consumed = try self.process(&buffer)
        buffer.removeFirst(consumed)
        self.pending = buffer
    }

    /// Ends the body; fails unless the closing delimiter was seen.
    mutating func finish() throws(Failure) -> [Part] {
        guard self.stage == .epilogue else {
            throw Failure(
                message: self.parts.isEmpty && self.current == nil
                    ? "No multipart boundary found" : "Missing closing boundary")
        }
        return self.parts
    }

    private mutating func process(_ buffer: inout [UInt8]) throws(Failure) -> Int {
        var start = 0
        let keep = self.delimiter.count - 1
        while true {
            switch self.stage {
            case .preamble:
                guard let match = Self.find(self.delimiter, in: buffer, from: start) else {
                    return max(start, buffer.count - keep)
                }
                start = match + self.delimiter.count
                self.stage = .afterDelimiter
            case .afterDelimiter:
                while start < buffer.count, buffer[start] == 0x20 || buffer[start] == 0x09 { start += 1 }
                guard buffer.count - start >= 2 else { return start }
                if buffer[start] == UInt8(ascii: "-"), buffer[start + 1] == UInt8(ascii: "-") {
                    self.stage = .epilogue
                    return buffer.count
                }
                guard buffer[start] == 0x0D, buffer[start + 1] == 0x0A else {
                    throw Failure(message: "Unexpected bytes after a boundary delimiter")
                }
                start += 2
                self.stage = .headers
            case .headers:
                let blockStart = start
                if buffer.count - start >= 2, buffer[start] == 0x0D, buffer[start + 1] == 0x0A {
                    start += 2  // no headers at all
                } else if let match = Self.find(Self.headerTerminator, in: buffer, from: start) {
                    start = match + 4
                } else {
                    guard buffer.count - start <= Self.maximumHeaderBlock else {
                        throw Failure(message: "Part headers are too large")
                    }
                    return start
                }
                self.current = try Self.makePart(headerBlock: buffer[blockStart..<(start - 2)])
                self.stage = .body
            case .body:
                if let match = Self.find(self.delimiter, in: buffer, from: start) {
                    self.consumeBody(buffer, start..<match)
                    self.parts.append(self.current!)
                    self.current = nil
                    start = match + self.delimiter.count
                    self.stage = .afterDelimiter
                } else {
                    let safeEnd = max(start, buffer.count - keep)
                    self.consumeBody(buffer, start..<safeEnd)
                    return safeEnd
                }
            case .epilogue:
                return buffer.count
            }
        }
    }

    private mutating func consumeBody(_ buffer: [UInt8], _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        self.current!.size += range.count
        buffer.withUnsafeBytes { raw in
            self.current!.hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: raw[range]))
        }
    }

    /// Index of the first occurrence of `needle` in `haystack[from...]`, using memchr/memcmp.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard haystack.count - from >= needle.count else { return nil }
        return haystack.withUnsafeBytes { hay -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                let base = hay.baseAddress!
                let first = Int32(pattern[0])
                let lastStart = hay.count - pattern.count
                var position = from
                while position <= lastStart {
                    guard let hit = memchr(base + position, first, lastStart - position + 1) else { return nil }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, pattern.baseAddress!, pattern.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
    }

    private static func decodeHeaderText(_ bytes: ArraySlice<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))  // ISO-8859-1
    }

    /// Builds a part from its raw header block (without the terminating empty line).
    private static func makePart(headerBlock: ArraySlice<UInt8>) throws(Failure) -> Part {
        var headers: [(String, String)] = []
        let text = Self.decodeHeaderText(headerBlock)
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(message: "Malformed part header line") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw Failure(message: "Empty part header name") }
            if let index = headers.firstIndex(where: { $0.0 == name }) {
                headers[index].1 += ", " + value
            } else {
                headers.append((name, value))
            }
        }
        guard let disposition = headers.first(where: { $0.0 == "content-disposition" })?.1 else {
            throw Failure(message: "A part has no Content-Disposition header")
        }
        guard let parsed = HeaderParameters(disposition), parsed.value.lowercased() == "form-data" else {
            throw Failure(message: "A part's Content-Disposition is not form-data")
        }
        guard let name = parsed["name"] else { throw Failure(message: "A part's Content-Disposition has no name") }
        var filename = parsed["filename"]
        if let extended = parsed["filename*"] {
            guard let decoded = HeaderParameters.decodeExtendedValue(extended) else {
                throw Failure(message: "A part's filename* is malformed")
            }
            filename = decoded
        }
        let contentType = headers.first { $0.0 == "content-type" }?.1
        return Part(name: name, filename: filename, contentType: contentType, headers: headers)
    }
}
