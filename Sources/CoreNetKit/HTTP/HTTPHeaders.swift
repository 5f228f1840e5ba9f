//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// HTTP header fields: an ordered list of (name, value) pairs whose names compare case-insensitively, with
/// repeated fields kept as they were sent or received.
///
/// The subscript joins a repeated field's values with `", "` (equivalent for list-based fields, RFC 9110 §5.3),
/// except `Set-Cookie`, whose values contain commas: its subscript gives the first value. ``values(for:)`` gives
/// every value of any field.
///
/// ```swift
/// let cookies = response.headers.values(for: "Set-Cookie")   // ["a=1; Path=/", "b=2"]
/// let vary = response.headers["Vary"]                          // "Accept, Accept-Language"
/// ```
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields as (name, value) pairs, in order, names spelled as sent or received.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from (name, value) pairs, kept in order, repeats included.
    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    /// Creates headers from a dictionary, sorted by name for a stable order.
    public init(_ dictionary: [String: String]) {
        self.init(sortingByName: dictionary.map { (name: $0.key, value: $0.value) })
    }

    /// Headers sorted by name as `init(_: [String: String])` sorts them; consumes `fields` to sort in place.
    init(sortingByName fields: consuming [(name: String, value: String)]) {
        fields.sort { $0.name < $1.name }
        self.fields = fields
    }

    /// Creates headers from a literal; a name given twice is kept twice.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The value of the field `name` (case-insensitive), repeats joined with `", "` (`Set-Cookie`: first value
    /// only); `nil` if absent. Setting replaces every such field with one at the end; `nil` removes them.
    public subscript(name: String) -> String? {
        get {
            var joined: String?
            for field in fields where Self.matches(field.name, name) {
                guard let first = joined else {
                    joined = field.value
                    continue
                }
                if Self.matches(name, "Set-Cookie") { break }
                joined = first + ", " + field.value
            }
            return joined
        }
        set {
            fields.removeAll { Self.matches($0.name, name) }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Every value of the field `name`, compared case-insensitively, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.matches($0.name, name) }.map(\.value)
    }

    /// Adds a field at the end, keeping any field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name` (compared case-insensitively).
    public mutating func remove(name: String) { fields.removeAll { Self.matches($0.name, name) } }

    /// Whether a field named `name` is present (compared case-insensitively).
    public func contains(_ name: String) -> Bool { fields.contains { Self.matches($0.name, name) } }

    /// The number of fields, repeats counted.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The fields as a dictionary (for `URLRequest.allHTTPHeaderFields`): repeats joined with `", "` (`Cookie`
    /// with `"; "`), the first spelling of each name kept.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        result.reserveCapacity(fields.count)
        var spelling: [String: String] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let name = spelling[key], let existing = result[name] {
                result[name] = existing + (key == "cookie" ? "; " : ", ") + field.value
            } else {
                spelling[key] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { matches($0.name, $1.name) && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }

    /// Whether two field names (tokens) are equal, ASCII case-insensitively; compares contiguous bytes when it can,
    /// as walking two `UTF8View`s is several times slower.
    static func matches(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        func same(_ a: UInt8, _ b: UInt8) -> Bool {
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A)
        }
        let contiguous = left.withContiguousStorageIfAvailable { left in
            right.withContiguousStorageIfAvailable { right in
                for index in left.indices where !same(left[index], right[index]) { return false }
                return true
            }
        }
        return (contiguous ?? nil) ?? left.elementsEqual(right, by: same)
    }
}

extension StringProtocol {
    /// The text without surrounding spaces and tabs (HTTP's optional whitespace, RFC 9110 §5.6.3); avoids
    /// `trimmingCharacters(in:)`, which bridges to `NSString` on Linux.
    var trimmingHTTPWhitespace: Substring {
        let text = Substring(self)
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { bytes.formIndex(after: &start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        return text[start..<end]
    }
}

/// Splits a `Set-Cookie` value Foundation folded with `", "` into its cookies: a comma splits only where `name=`
/// follows, so the comma in `Expires=Wed, 21 Oct 2026 07:28:00 GMT` stays inside its cookie.
enum SetCookieSplitter {
    static func split(_ value: String) -> [String] {
        let bytes = Array(value.utf8)
        var cookies: [String] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: ",") && startsCookie(bytes, at: index + 1) {
            cookies.append(trimmed(bytes[start..<index]))
            start = index + 1
        }
        cookies.append(trimmed(bytes[start...]))
        return cookies.filter { !$0.isEmpty }
    }

    /// Whether `name=` (a token, then `=`) follows `index`, after spaces.
    private static func startsCookie(_ bytes: [UInt8], at index: Int) -> Bool {
        var position = index
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
        let nameStart = position
        while position < bytes.count, isTokenByte(bytes[position]) { position += 1 }
        return position > nameStart && position < bytes.count && bytes[position] == UInt8(ascii: "=")
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        // A letter (`| 0x20` lower-cases), a digit or a symbol of `tchar` (RFC 9110 §5.6.2).
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        String(String(decoding: bytes, as: UTF8.self).trimmingHTTPWhitespace)
    }
}
