//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

extension LogRedactor {
    /// JSON `body` with every secret-named member's value replaced by ``mask`` and the rest as the server wrote it:
    /// re-encoding would use dictionary order, which differed between two redactions (a log and a HAR file). `nil`
    /// when `body` is not one UTF-8 JSON value, or nests deeper than 512.
    static func redactJSON(_ body: Data) -> String? {
        body.withUnsafeBytes { $0.withMemoryRebound(to: UInt8.self, redactJSON) }
    }

    private static func redactJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var scanner = JSONMemberScanner(bytes: bytes)
        guard scanner.document(), let text = String(validating: bytes, as: UTF8.self) else { return nil }
        guard !scanner.secretValues.isEmpty else { return text }
        var redacted: [UInt8] = []
        redacted.reserveCapacity(bytes.count)
        var copied = 0
        for value in scanner.secretValues {
            redacted += bytes[copied..<value.lowerBound]
            redacted += Array("\"\(mask)\"".utf8)
            copied = value.upperBound
        }
        redacted += bytes[copied...]
        return String(decoding: redacted, as: UTF8.self)
    }
}

/// Reads JSON once, checking its grammar (RFC 8259), and notes where each secret-named member's value lies.
private struct JSONMemberScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// The values of secret-named members, in order; none inside another.
    var secretValues: [Range<Int>] = []

    mutating func document() -> Bool {
        skipSpace()
        guard value() else { return false }
        skipSpace()
        return index == bytes.count
    }

    private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = next, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func value() -> Bool {
        switch next {
        case UInt8(ascii: "{"): container(members: true)
        case UInt8(ascii: "["): container(members: false)
        case UInt8(ascii: "\""): string(keepingText: false) != nil
        case UInt8(ascii: "t"): literal("true")
        case UInt8(ascii: "f"): literal("false")
        case UInt8(ascii: "n"): literal("null")
        case .some: number()
        case nil: false
        }
    }

    /// An object (`members`) or an array, from its opening bracket.
    private mutating func container(members: Bool) -> Bool {
        let closing = members ? UInt8(ascii: "}") : UInt8(ascii: "]")
        depth += 1
        defer { depth -= 1 }
        guard depth <= 512 else { return false }
        index += 1
        skipSpace()
        if next == closing {
            index += 1
            return true
        }
        while true {
            if members {
                guard next == UInt8(ascii: "\""), let name = string(keepingText: true) else { return false }
                skipSpace()
                guard next == UInt8(ascii: ":") else { return false }
                index += 1
                skipSpace()
                let start = index
                guard value() else { return false }
                if LogRedactor.isSecret(name: name) {
                    // Values found inside it are masked with it.
                    while let last = secretValues.last, last.lowerBound >= start { secretValues.removeLast() }
                    secretValues.append(start..<index)
                }
            } else {
                guard value() else { return false }
            }
            skipSpace()
            guard let separator = next else { return false }
            index += 1
            if separator == closing { return true }
            guard separator == UInt8(ascii: ",") else { return false }
            skipSpace()
        }
    }

    /// Its text (escapes decoded) when `keepingText`, else `""`; `nil` when invalid.
    private mutating func string(keepingText: Bool) -> String? {
        let start = index
        var escaped = false
        index += 1
        while let byte = next {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard keepingText else { return "" }
                let quoted = UnsafeBufferPointer(rebasing: bytes[start..<index])
                guard escaped else { return String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self) }
                return try? JSONDecoder().decode(String.self, from: Data(quoted))
            case UInt8(ascii: "\\"):
                escaped = true
                guard let escape = next else { return nil }
                index += 1
                if escape == UInt8(ascii: "u") {
                    guard index + 4 <= bytes.count, bytes[index..<index + 4].allSatisfy(\.isHexDigit) else {
                        return nil
                    }
                    index += 4
                } else if !"\"\\/bfnrt".utf8.contains(escape) {
                    return nil
                }
            case ..<0x20: return nil
            default: continue
            }
        }
        return nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[index..<index + count])
        else { return false }
        index += count
        return true
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() -> Bool {
        if next == UInt8(ascii: "-") { index += 1 }
        if next == UInt8(ascii: "0") {
            index += 1
        } else if !digits() {
            return false
        }
        if next == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return false }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            index += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return false }
        }
        return true
    }

    private mutating func digits() -> Bool {
        let start = index
        while let byte = next, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20)
    }
}
