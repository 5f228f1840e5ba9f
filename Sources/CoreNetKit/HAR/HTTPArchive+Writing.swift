//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Writes a HAR entry as JSON by hand, for the recorder: `JSONEncoder` costs about four times as
/// much per entry (generic boxing, a dictionary per object), which a recorder pays on every
/// exchange. Reading goes through `Codable`; the tests check that what this writes decodes to
/// the entry it was given.
struct HARWriter {
    private(set) var bytes: [UInt8] = []

    /// `entry` as one line of JSON.
    static func encode(_ entry: HTTPArchive.Entry) -> [UInt8] {
        var writer = HARWriter()
        writer.bytes.reserveCapacity(1024 + (entry.response.content.text?.utf8.count ?? 0))
        writer.object { writer in
            writer.field("startedDateTime", entry.startedDateTime)
            writer.field("time", entry.time)
            writer.key("request")
            writer.request(entry.request)
            writer.key("response")
            writer.response(entry.response)
            writer.key("cache")
            writer.object { $0.field("comment", entry.cache.comment) }
            writer.key("timings")
            writer.timings(entry.timings)
            writer.field("comment", entry.comment)
            writer.field("_requestId", entry.requestId)
            writer.field("_attempt", entry.attempt.map(Double.init))
            writer.field("_fromCache", entry.fromCache)
            writer.field("_error", entry.error)
        }
        return writer.bytes
    }

    private mutating func request(_ request: HTTPArchive.Request) {
        object { writer in
            writer.field("method", request.method)
            writer.field("url", request.url)
            writer.field("httpVersion", request.httpVersion)
            writer.cookies(request.cookies)
            writer.fields("headers", request.headers)
            writer.fields("queryString", request.queryString)
            if let postData = request.postData {
                writer.key("postData")
                writer.object { writer in
                    writer.field("mimeType", postData.mimeType)
                    writer.field("text", postData.text)
                    if let params = postData.params {
                        writer.array("params", params) { writer, param in
                            writer.field("name", param.name)
                            writer.field("value", param.value)
                            writer.field("fileName", param.fileName)
                            writer.field("contentType", param.contentType)
                            writer.field("comment", param.comment)
                        }
                    }
                    writer.field("comment", postData.comment)
                }
            }
            writer.field("headersSize", Double(request.headersSize))
            writer.field("bodySize", Double(request.bodySize))
            writer.field("comment", request.comment)
        }
    }

    private mutating func response(_ response: HTTPArchive.Response) {
        object { writer in
            writer.field("status", Double(response.status))
            writer.field("statusText", response.statusText)
            writer.field("httpVersion", response.httpVersion)
            writer.cookies(response.cookies)
            writer.fields("headers", response.headers)
            writer.key("content")
            writer.object { writer in
                writer.field("size", Double(response.content.size))
                writer.field("mimeType", response.content.mimeType)
                writer.field("text", response.content.text)
                writer.field("encoding", response.content.encoding)
                writer.field("comment", response.content.comment)
            }
            writer.field("redirectURL", response.redirectURL)
            writer.field("headersSize", Double(response.headersSize))
            writer.field("bodySize", Double(response.bodySize))
            writer.field("comment", response.comment)
        }
    }

    private mutating func timings(_ timings: HTTPArchive.Timings) {
        object { writer in
            writer.field("blocked", timings.blocked)
            writer.field("dns", timings.dns)
            writer.field("connect", timings.connect)
            writer.field("send", timings.send)
            writer.field("wait", timings.wait)
            writer.field("receive", timings.receive)
            writer.field("ssl", timings.ssl)
            writer.field("comment", timings.comment)
        }
    }

    private mutating func cookies(_ cookies: [HTTPArchive.Cookie]) {
        array("cookies", cookies) { writer, cookie in
            writer.field("name", cookie.name)
            writer.field("value", cookie.value)
            writer.field("path", cookie.path)
            writer.field("domain", cookie.domain)
            writer.field("expires", cookie.expires)
            if let httpOnly = cookie.httpOnly { writer.field("httpOnly", literal: httpOnly ? "true" : "false") }
            if let secure = cookie.secure { writer.field("secure", literal: secure ? "true" : "false") }
            writer.field("comment", cookie.comment)
        }
    }

    private mutating func fields(_ name: StaticString, _ fields: [HTTPArchive.Field]) {
        array(name, fields) { writer, field in
            writer.field("name", field.name)
            writer.field("value", field.value)
            writer.field("comment", field.comment)
        }
    }

    // MARK: JSON

    /// Whether the object being written has no member yet.
    private var empty = true

    private mutating func object(_ members: (inout HARWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        empty = true
        members(&self)
        bytes.append(UInt8(ascii: "}"))
        empty = false
    }

    private mutating func array<Element>(
        _ name: StaticString, _ elements: [Element], _ members: (inout HARWriter, Element) -> Void
    ) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            object { members(&$0, element) }
        }
        bytes.append(UInt8(ascii: "]"))
        empty = false
    }

    /// A member's name: one of this writer's own, plain ASCII with nothing to escape.
    private mutating func key(_ name: StaticString) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        empty = true  // the value that follows is not a member of its own
    }

    private mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
        empty = false
    }

    private mutating func field(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        number(value)
        empty = false
    }

    /// `value` as a JSON number. Sizes and statuses are whole, and times are milliseconds to the
    /// microsecond: those are written digit by digit, which reads back as the same `Double`
    /// (both are the one nearest the decimal); anything else as Swift prints it.
    private mutating func number(_ value: Double) {
        let thousandths = (value * 1000).rounded()
        guard abs(thousandths) < 1e15, thousandths / 1000 == value else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        if thousandths < 0 { bytes.append(UInt8(ascii: "-")) }
        let scaled = Int(abs(thousandths))
        digits(scaled / 1000)
        guard scaled % 1000 != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var fraction = scaled % 1000
        var places = 3
        while fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        digits(fraction, count: places)
    }

    /// The decimal digits of `value` (not negative, below 10¹⁵), padded with zeros to `count`.
    private mutating func digits(_ value: Int, count: Int = 1) {
        var length = 1
        var power = 10
        while power <= value {
            length += 1
            power *= 10
        }
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(length, count)))
        var rest = value
        var at = bytes.count - 1
        while rest > 0 {
            bytes[at] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            at -= 1
        }
    }

    private mutating func field(_ name: StaticString, literal: String) {
        key(name)
        bytes.append(contentsOf: literal.utf8)
        empty = false
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, written in
    /// one piece into room made for it: a body has a quote every few bytes, and appending the
    /// runs between them one by one cost more than the bytes themselves. The room is what the
    /// escapes need, counted eight bytes at a time; for a text of 65 bytes to 64 KiB (a body),
    /// the most they can need (six bytes each), which is cheaper to make than to count.
    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            let escapes = utf8.count > 64 && utf8.count <= 64 << 10 ? utf8.count : Self.escapeCount(utf8)
            guard escapes > 0 else {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: utf8)
                bytes.append(UInt8(ascii: "\""))
                return
            }
            let start = bytes.count
            // An escape is two bytes, a control character's six; seven more let the last
            // bytes be copied eight at a time too.
            bytes.append(contentsOf: repeatElement(0, count: utf8.count + escapes * 5 + 2 + 7))
            let end = bytes.withUnsafeMutableBufferPointer { Self.write(utf8, into: $0, at: start) }
            bytes.removeLast(bytes.count - end)
        }
    }

    private static func escapes(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// `0x80` in each byte of `word` (read little-endian) that a JSON string escapes, `0` in the
    /// others: a control character has its top three bits zero, a quote or a backslash is zero
    /// after an exclusive or with itself.
    private static func escapedBytes(_ word: UInt64) -> UInt64 {
        zeroBytes(word & 0xE0E0_E0E0_E0E0_E0E0) | zeroBytes(word ^ 0x2222_2222_2222_2222)
            | zeroBytes(word ^ 0x5C5C_5C5C_5C5C_5C5C)
    }

    /// `0x80` in each byte of `word` that is zero, and nothing else: adding `0x7F` to the low
    /// seven bits sets the top one unless they are all zero, and no byte carries into the next.
    private static func zeroBytes(_ word: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((word & low) &+ low) | word | low)
    }

    /// How many bytes of `utf8` a JSON string escapes, eight at a time.
    static func escapeCount(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        let words = UnsafeRawBufferPointer(utf8)
        var count = 0
        var index = 0
        while index + 8 <= words.count {
            // One bit a byte found, summed into the top byte by a multiplication.
            let found = escapedBytes(UInt64(littleEndian: words.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            count += Int(((found >> 7) &* 0x0101_0101_0101_0101) >> 56)
            index += 8
        }
        for byte in utf8[index...] where escapes(byte) { count += 1 }
        return count
    }

    /// Writes `utf8` quoted and escaped into `out` from `start`; returns where it ended. Eight
    /// bytes are copied at a time; in a word with bytes to escape, each escape is written where
    /// its byte was and the rest of the word stored again after it.
    private static func write(
        _ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int
    ) -> Int {
        let input = UnsafeRawBufferPointer(utf8)
        let output = UnsafeMutableRawBufferPointer(out)
        var at = start
        output[at] = UInt8(ascii: "\"")
        at += 1
        var index = 0
        // Room for a word of eight control characters (six bytes each) and a store after it.
        while index + 8 <= input.count, at + 56 <= output.count {
            let word = UInt64(littleEndian: input.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            output.storeBytes(of: word.littleEndian, toByteOffset: at, as: UInt64.self)
            var escaped = escapedBytes(word)
            // The bytes of the word from `done` on are stored from `at` on.
            var done = 0
            while escaped != 0 {
                let byte = escaped.trailingZeroBitCount / 8
                at = escape(UInt8(truncatingIfNeeded: word >> (byte * 8)), into: output, at: at + byte - done)
                done = byte + 1
                output.storeBytes(of: (word >> (done * 8)).littleEndian, toByteOffset: at, as: UInt64.self)
                escaped &= escaped - 1
            }
            at += 8 - done
            index += 8
        }
        for byte in input[index...] {
            if escapes(byte) {
                at = escape(byte, into: output, at: at)
            } else {
                output[at] = byte
                at += 1
            }
        }
        output[at] = UInt8(ascii: "\"")
        return at + 1
    }

    /// Writes the escape of `byte` at `at`; returns where it ended.
    @inline(__always)
    private static func escape(_ byte: UInt8, into output: UnsafeMutableRawBufferPointer, at: Int) -> Int {
        output[at] = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output[at + 1] = byte
        case UInt8(ascii: "\n"): output[at + 1] = UInt8(ascii: "n")
        case UInt8(ascii: "\r"): output[at + 1] = UInt8(ascii: "r")
        case UInt8(ascii: "\t"): output[at + 1] = UInt8(ascii: "t")
        default:
            let hex: StaticString = "0123456789abcdef"
            output[at + 1] = UInt8(ascii: "u")
            output[at + 2] = UInt8(ascii: "0")
            output[at + 3] = UInt8(ascii: "0")
            output[at + 4] = hex.utf8Start[Int(byte >> 4)]
            output[at + 5] = hex.utf8Start[Int(byte & 0xF)]
            return at + 6
        }
        return at + 2
    }
}
