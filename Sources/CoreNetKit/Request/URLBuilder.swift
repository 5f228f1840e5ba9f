//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Joins base and relative URLs and encodes query strings (RFC 3986).
enum URLBuilder {
    /// `baseUrl` joined with `relativeUrl` by exactly one slash, plus `query` items appended.
    ///
    /// - Throws: ``BaseServerError`` `invalidRequest` when `relativeUrl` names a scheme or host
    ///   of its own, or the result is not a valid URL.
    static func url(base: URL, relative: String, query: [(String, String)]) throws -> URL {
        if startsWithTwoSlashes(relative) || hasScheme(relative) {
            throw BaseServerError.invalidRequest(
                "the relative URL \"\(LogRedactor.redact(urlText: relative))\" may not change the scheme or host of "
                    + LogRedactor.redact(url: base))
        }
        // Byte by byte on the UTF-8 view: every separator here is ASCII, and the Character view's
        // grapheme breaking cost more than the rest of the request's encoding together.
        let baseText = base.absoluteString
        let baseBytes = baseText.utf8
        let mark = baseBytes.firstIndex(of: UInt8(ascii: "?"))
        var baseEnd = mark ?? baseBytes.endIndex
        while baseEnd > baseBytes.startIndex, baseBytes[baseBytes.index(before: baseEnd)] == UInt8(ascii: "/") {
            baseEnd = baseBytes.index(before: baseEnd)
        }
        let baseQuery = mark.map { baseText[baseBytes.index(after: $0)...] }
        let relativeBytes = relative.utf8
        var pathStart = relativeBytes.startIndex
        while pathStart < relativeBytes.endIndex, relativeBytes[pathStart] == UInt8(ascii: "/") {
            pathStart = relativeBytes.index(after: pathStart)
        }
        let path = relative[pathStart...]
        var joined = ""
        joined.reserveCapacity(baseBytes.count + relativeBytes.count + 1 + (query.isEmpty ? 0 : 64))
        joined += baseText[..<baseEnd]
        if !path.isEmpty, path.utf8.first != UInt8(ascii: "?") { joined += "/" }
        joined += path
        var hasQuery = path.utf8.contains(UInt8(ascii: "?"))
        if let baseQuery, !baseQuery.isEmpty {
            joined += hasQuery ? "&" : "?"
            joined += baseQuery
            hasQuery = true
        }
        if !query.isEmpty {
            joined += hasQuery ? "&" : "?"
            joined += encode(query)
        }
        if let url = recent.url(for: joined) { return url }
        guard let url = URL(string: joined), hasPlainSchemeAndHost(joined) || (url.scheme != nil && url.host != nil)
        else {
            throw BaseServerError.invalidRequest("\"\(LogRedactor.redact(urlText: joined))\" is not a valid URL")
        }
        recent.remember(url, for: joined)
        return url
    }

    /// URLs built lately, so a service that calls the same endpoints again skips Foundation's
    /// parse (about a third of the library's own cost of a plain GET).
    static let recent = RecentURLs()

    /// Whether `text` plainly starts with a scheme and a host: `scheme://host[:port]` followed by
    /// `/`, `?`, `#` or the end, the host made of letters, digits, `.` and `-`. Checked on the
    /// bytes, so the usual URL skips asking Foundation for its scheme and (percent-decoded) host;
    /// any other text is left to Foundation.
    static func hasPlainSchemeAndHost(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        guard let first = bytes.next(), isLetter(first) else { return false }
        while true {
            guard let byte = bytes.next() else { return false }
            if byte == UInt8(ascii: ":") { break }
            guard
                isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".")
            else { return false }
        }
        guard bytes.next() == UInt8(ascii: "/"), bytes.next() == UInt8(ascii: "/") else { return false }
        var hostLength = 0
        var inPort = false
        while let byte = bytes.next() {
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if inPort {
                guard isDigit(byte) else { return false }
            } else if byte == UInt8(ascii: ":") {
                inPort = true
            } else {
                guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                else { return false }
                hostLength += 1
            }
        }
        return hostLength > 0
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Whether `string` starts with `//` (a network-path reference: a host of its own).
    private static func startsWithTwoSlashes(_ string: String) -> Bool {
        var bytes = string.utf8.makeIterator()
        return bytes.next() == UInt8(ascii: "/") && bytes.next() == UInt8(ascii: "/")
    }

    /// Whether `string` starts with `scheme:` before any `/`, `?` or `#`.
    private static func hasScheme(_ string: String) -> Bool {
        for scalar in string.unicodeScalars {
            if scalar == ":" { return true }
            if scalar == "/" || scalar == "?" || scalar == "#" { return false }
        }
        return false
    }

    /// Items as `key=value` pairs joined by `&`, every byte outside RFC 3986's unreserved set
    /// percent-encoded.
    static func encode(_ items: [(String, String)]) -> String {
        var result = ""
        for (index, item) in items.enumerated() {
            if index > 0 { result += "&" }
            result += percentEncode(item.0)
            result += "="
            result += percentEncode(item.1)
        }
        return result
    }

    /// Query items from parameters: sorted by key, arrays as repeated keys.
    static func items(_ parameters: [String: QueryValue]) -> [(String, String)] {
        parameters.sorted { $0.key < $1.key }.flatMap { key, value in value.renderedValues.map { (key, $0) } }
    }

    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    static func percentEncode(_ string: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A small cache of parsed URLs, keyed by their text: direct-mapped, so a lookup is one hash,
/// one slot and one comparison under a lock, and a miss simply overwrites the slot.
///
/// `URL(string:)` is a pure function of its text, so a remembered URL is the URL a fresh parse
/// would give. Only valid URLs are remembered, and only short ones: a long query (a search, a
/// signed link) is parsed every time rather than kept in memory after its request.
final class RecentURLs: Sendable {
    /// The number of slots.
    static let capacity = 64
    /// The longest text remembered, in UTF-8 bytes.
    static let longestText = 256

    private struct Slot {
        var text: String
        var url: URL
    }

    private let slots = Locked([Slot?](repeating: nil, count: RecentURLs.capacity))

    /// The URL remembered for `text`, if any.
    func url(for text: String) -> URL? {
        guard text.utf8.count <= Self.longestText else { return nil }
        let index = Self.slot(of: text)
        return slots.withLock { slots in
            guard let slot = slots[index], slot.text == text else { return nil }
            return slot.url
        }
    }

    /// Remembers `url`, parsed from `text`, in place of whatever shared its slot.
    func remember(_ url: URL, for text: String) {
        guard text.utf8.count <= Self.longestText else { return }
        let index = Self.slot(of: text)
        slots.withLock { $0[index] = Slot(text: text, url: url) }
    }

    private static func slot(of text: String) -> Int {
        Int(UInt(bitPattern: text.hashValue) % UInt(capacity))
    }
}
