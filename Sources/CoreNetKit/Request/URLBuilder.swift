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
    /// `base` joined to `relative` by exactly one slash, with `query` appended. Throws ``BaseServerError``
    /// `invalidRequest` when `relative` names its own scheme or host, or the result is not a valid URL.
    static func url(base: URL, relative: String, query: [(String, String)]) throws -> URL {
        if relative.utf8.starts(with: "//".utf8) || hasScheme(relative) {  // `//host` names a host of its own
            throw BaseServerError.invalidRequest(
                "the relative URL \"\(LogRedactor.redact(urlText: relative))\" may not change the scheme or host of "
                    + LogRedactor.redact(url: base))
        }
        let baseText = base.absoluteString
        let encodedQuery = query.isEmpty ? "" : encode(query)
        if let url = recent.url(base: baseText, relative: relative, query: encodedQuery) { return url }
        let joined = join(base: baseText, relative: relative, query: encodedQuery)
        guard let url = URL(string: joined), hasPlainSchemeAndHost(joined) || (url.scheme != nil && url.host != nil)
        else {
            throw BaseServerError.invalidRequest("\"\(LogRedactor.redact(urlText: joined))\" is not a valid URL")
        }
        recent.remember(url, base: baseText, relative: relative, query: encodedQuery)
        return url
    }

    /// URLs built lately, so calling the same endpoints again skips Foundation's parse.
    static let recent = RecentURLs()

    /// `base` without its query and trailing slashes, one slash, `relative` without leading slashes, then the
    /// queries of `relative`, `base` and `query`, joined by `&`. Joined on UTF-8 bytes: joining Characters cost more
    /// than the rest of the request's encoding.
    private static func join(base: String, relative: String, query: String) -> String {
        let base = base.utf8
        let mark = base.firstIndex(of: UInt8(ascii: "?"))
        var baseEnd = mark ?? base.endIndex
        while baseEnd > base.startIndex, base[base.index(before: baseEnd)] == UInt8(ascii: "/") {
            baseEnd = base.index(before: baseEnd)
        }
        let baseQuery = mark.map { base[base.index(after: $0)...] } ?? base[base.endIndex...]
        let path = relative.utf8.drop { $0 == UInt8(ascii: "/") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(base.count + path.count + query.utf8.count + 3)
        bytes.append(contentsOf: base[..<baseEnd])
        if let first = path.first, first != UInt8(ascii: "?") { bytes.append(UInt8(ascii: "/")) }
        bytes.append(contentsOf: path)
        var hasQuery = path.contains(UInt8(ascii: "?"))
        if !baseQuery.isEmpty {
            bytes.append(hasQuery ? UInt8(ascii: "&") : UInt8(ascii: "?"))
            bytes.append(contentsOf: baseQuery)
            hasQuery = true
        }
        if !query.isEmpty {
            bytes.append(hasQuery ? UInt8(ascii: "&") : UInt8(ascii: "?"))
            bytes.append(contentsOf: query.utf8)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text` plainly starts with `scheme://host[:port]` then `/`, `?`, `#` or the end (host: letters, digits,
    /// `.`, `-`), so the usual URL skips asking Foundation for its scheme and host.
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

    /// Whether `string` starts with `scheme:` before any `/`, `?` or `#`.
    private static func hasScheme(_ string: String) -> Bool {
        for scalar in string.unicodeScalars {
            if scalar == ":" { return true }
            if scalar == "/" || scalar == "?" || scalar == "#" { return false }
        }
        return false
    }

    /// Items as `key=value` joined by `&`, every byte outside RFC 3986's unreserved set percent-encoded.
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

/// A direct-mapped cache of built URLs keyed by base text, relative URL and encoded query (the URL is a pure function
/// of them); a miss overwrites the slot. Only texts up to ``longestText`` bytes are kept, so long queries aren't held.
final class RecentURLs: Sendable {
    static let capacity = 64
    /// The longest text remembered (the three parts together), in UTF-8 bytes.
    static let longestText = 256

    private struct Slot {
        var base: String
        var relative: String
        var query: String
        var url: URL
    }

    private let slots = Locked([Slot?](repeating: nil, count: RecentURLs.capacity))

    func url(base: String, relative: String, query: String) -> URL? {
        guard let index = Self.slot(base, relative, query) else { return nil }
        return slots.withLock { slots in
            guard let slot = slots[index], slot.relative == relative, slot.base == base, slot.query == query
            else { return nil }
            return slot.url
        }
    }

    /// Remembers `url` for the three parts, replacing whatever shared its slot.
    func remember(_ url: URL, base: String, relative: String, query: String) {
        guard let index = Self.slot(base, relative, query) else { return }
        slots.withLock { $0[index] = Slot(base: base, relative: relative, query: query, url: url) }
    }

    /// The slot of the three parts; `nil` when too long. FNV-1a: a hit compares all parts, so a seeded `Hasher` buys
    /// nothing and cost four times as much.
    private static func slot(_ base: String, _ relative: String, _ query: String) -> Int? {
        guard base.utf8.count + relative.utf8.count + query.utf8.count <= longestText else { return nil }
        let hash = fnv1a(query, fnv1a(relative, fnv1a(base, 0xcbf2_9ce4_8422_2325)))
        return Int(hash % UInt64(capacity))
    }

    /// `hash` mixed with the bytes of `text`, then a separator byte no UTF-8 text contains.
    private static func fnv1a(_ text: String, _ hash: UInt64) -> UInt64 {
        func mix(_ bytes: some Sequence<UInt8>) -> UInt64 {
            var hash = hash
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return (hash ^ 0xFF) &* 0x100_0000_01b3
        }
        return text.utf8.withContiguousStorageIfAvailable(mix) ?? mix(text.utf8)
    }
}
