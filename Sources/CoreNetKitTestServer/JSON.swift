//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// A JSON value whose objects keep their key order, so every response is byte-for-byte deterministic.
enum JSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    /// A number kept as its (already valid) JSON literal text, e.g. `0.5` or `1e3`.
    case number(String)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    /// `.string(value)` or `.null`.
    static func optional(_ value: String?) -> JSON {
        value.map { .string($0) } ?? .null
    }

    /// The value stored under `key` when this is an object.
    subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The payload of a `.string`.
    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The compact UTF-8 encoding of this value.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        self.write(into: &out)
        return out
    }

    /// The compact encoding in a `ByteBuffer`.
    var byteBuffer: ByteBuffer {
        ByteBuffer(bytes: self.bytes)
    }

    /// Appends the compact encoding of this value to `out`.
    func write(into out: inout [UInt8]) {
        switch self {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let value):
            out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value):
            out.append(contentsOf: String(value).utf8)
        case .number(let literal):
            out.append(contentsOf: literal.utf8)
        case .string(let value):
            Self.writeString(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.0, into: &out)
                out.append(UInt8(ascii: ":"))
                member.1.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `value` as a quoted JSON string, escaping quotes, backslashes and control characters.
    static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x00..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
