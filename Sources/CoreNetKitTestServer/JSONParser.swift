//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// A small strict RFC 8259 parser producing order-preserving ``JSON`` values. Numbers are kept as
/// their literal text so an echoed body comes back exactly as it was sent.
struct JSONParser {
    /// Why a document was rejected.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private static let maximumDepth = 256

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one complete JSON document; trailing non-whitespace is an error.
    static func parse(_ bytes: [UInt8]) throws(Failure) -> JSON {
        var parser = JSONParser(bytes)
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("Unexpected data after the JSON value") }
        return value
    }

    private func failure(_ message: String) -> Failure {
        Failure(description: "\(message) at offset \(self.index)")
    }

    private var current: UInt8? {
        self.index < self.bytes.count ? self.bytes[self.index] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = self.current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            self.index += 1
        }
    }

    private mutating func expect(_ literal: String, _ value: JSON) throws(Failure) -> JSON {
        for byte in literal.utf8 {
            guard self.current == byte else { throw self.failure("Invalid literal") }
            self.index += 1
        }
        return value
    }

    private mutating func parseValue() throws(Failure) -> JSON {
        self.skipWhitespace()
        guard let byte = self.current else { throw self.failure("Unexpected end of data") }
        switch byte {
        case UInt8(ascii: "{"): return try self.parseObject()
        case UInt8(ascii: "["): return try self.parseArray()
        case UInt8(ascii: "\""): return .string(try self.parseString())
        case UInt8(ascii: "t"): return try self.expect("true", .bool(true))
        case UInt8(ascii: "f"): return try self.expect("false", .bool(false))
        case UInt8(ascii: "n"): return try self.expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try self.parseNumber()
        default: throw self.failure("Unexpected character")
        }
    }

    private mutating func enter() throws(Failure) {
        self.depth += 1
        guard self.depth <= Self.maximumDepth else { throw self.failure("Nesting too deep") }
    }

    private mutating func parseObject() throws(Failure) -> JSON {
        try self.enter()
        defer { self.depth -= 1 }
        self.index += 1
        var members: [(String, JSON)] = []
        self.skipWhitespace()
        if self.current == UInt8(ascii: "}") {
            self.index += 1
            return .object(members)
        }
        while true {
            self.skipWhitespace()
            guard self.current == UInt8(ascii: "\"") else { throw self.failure("Expected an object key") }
            let key = try self.parseString()
            self.skipWhitespace()
            guard self.current == UInt8(ascii: ":") else { throw self.failure("Expected ':'") }
            self.index += 1
            members.append((key, try self.parseValue()))
            self.skipWhitespace()
            switch self.current {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "}"):
                self.index += 1
                return .object(members)
            default: throw self.failure("Expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(Failure) -> JSON {
        try self.enter()
        defer { self.depth -= 1 }
        self.index += 1
        var elements: [JSON] = []
        self.skipWhitespace()
        if self.current == UInt8(ascii: "]") {
            self.index += 1
            return .array(elements)
        }
        while true {
            elements.append(try self.parseValue())
            self.skipWhitespace()
            switch self.current {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "]"):
                self.index += 1
                return .array(elements)
            default: throw self.failure("Expected ',' or ']'")
            }
        }
    }

    private mutating func parseDigits() -> Int {
        let start = self.index
        while let byte = self.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { self.index += 1 }
        return self.index - start
    }

    private mutating func parseNumber() throws(Failure) -> JSON {
        let start = self.index
        if self.current == UInt8(ascii: "-") { self.index += 1 }
        if self.current == UInt8(ascii: "0") {
            self.index += 1
        } else if self.parseDigits() == 0 {
            throw self.failure("Invalid number")
        }
        var isInteger = true
        if self.current == UInt8(ascii: ".") {
            self.index += 1
            isInteger = false
            guard self.parseDigits() > 0 else { throw self.failure("Invalid fraction") }
        }
        if self.current == UInt8(ascii: "e") || self.current == UInt8(ascii: "E") {
            self.index += 1
            isInteger = false
            if self.current == UInt8(ascii: "+") || self.current == UInt8(ascii: "-") { self.index += 1 }
            guard self.parseDigits() > 0 else { throw self.failure("Invalid exponent") }
        }
        let literal = String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        if isInteger, let value = Int(literal) { return .int(value) }
        return .number(literal)
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = self.current else { throw self.failure("Truncated \\u escape") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw self.failure("Invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            self.index += 1
        }
        return value
    }

    private mutating func parseString() throws(Failure) -> String {
        self.index += 1
        var out: [UInt8] = []
        while true {
            guard let byte = self.current else { throw self.failure("Unterminated string") }
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: out, as: UTF8.self) else { throw self.failure("Invalid UTF-8") }
                return string
            case 0x00..<0x20:
                throw self.failure("Unescaped control character in string")
            case UInt8(ascii: "\\"):
                guard let escape = self.current else { throw self.failure("Unterminated escape") }
                self.index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try self.parseHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard self.current == UInt8(ascii: "\\") else { throw self.failure("Lone surrogate") }
                        self.index += 1
                        guard self.current == UInt8(ascii: "u") else { throw self.failure("Lone surrogate") }
                        self.index += 1
                        let low = try self.parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw self.failure("Invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw self.failure("Invalid code point") }
                    out.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw self.failure("Invalid escape")
                }
            default:
                out.append(byte)
            }
        }
    }
}
