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
///
/// It writes into memory of its own through a pointer, after one check of the room left per
/// piece: an `Array`'s `append` asks the runtime whether its storage is shared at every byte,
/// which cost more than the bytes (over the stub, 34.5k instructions for the 20-item page's
/// entry; about 20k this way).
struct HARWriter: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0
    /// Whether the object being written has no member yet.
    private var empty = true

    private init(capacity: Int) {
        self.capacity = capacity
        self.base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// `entry` as one line of JSON.
    static func encode(_ entry: HTTPArchive.Entry) -> [UInt8] {
        // Room for the bodies' worst case (every byte a six-byte escape): no growing on the way.
        let bodies = (entry.response.content.text?.utf8.count ?? 0) + (entry.request.postData?.text.utf8.count ?? 0)
        var writer = HARWriter(capacity: 2048 + 6 * bodies)
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
        return [UInt8](UnsafeRawBufferPointer(start: writer.base, count: writer.count))
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

    /// Makes room for `bytes` more bytes.
    @inline(__always)
    private mutating func reserve(_ bytes: Int) {
        guard count + bytes > capacity else { return }
        let larger = max(capacity * 2, count + bytes)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 8)
        moved.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    /// Appends `byte`.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends `text`.
    @inline(__always)
    private mutating func put(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount)
        (base + count).copyMemory(from: text.utf8Start, byteCount: text.utf8CodeUnitCount)
        count += text.utf8CodeUnitCount
    }

    private mutating func object(_ members: (inout HARWriter) -> Void) {
        put(UInt8(ascii: "{"))
        empty = true
        members(&self)
        put(UInt8(ascii: "}"))
        empty = false
    }

    private mutating func array<Element>(
        _ name: StaticString, _ elements: [Element], _ members: (inout HARWriter, Element) -> Void
    ) {
        key(name)
        put(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { put(UInt8(ascii: ",")) }
            object { members(&$0, element) }
        }
        put(UInt8(ascii: "]"))
        empty = false
    }

    /// A member's name: one of this writer's own, plain ASCII with nothing to escape.
    private mutating func key(_ name: StaticString) {
        if !empty { put(UInt8(ascii: ",")) }
        put(UInt8(ascii: "\""))
        put(name)
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
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

    private mutating func field(_ name: StaticString, literal: StaticString) {
        key(name)
        put(literal)
        empty = false
    }

    /// `value` as a JSON number. Sizes and statuses are whole, and times are milliseconds to the
    /// microsecond: those are written digit by digit, which reads back as the same `Double`
    /// (both are the one nearest the decimal); anything else as Swift prints it.
    private mutating func number(_ value: Double) {
        let thousandths = (value * 1000).rounded()
        guard abs(thousandths) < 1e15, thousandths / 1000 == value else {
            var text = String(value)
            text.withUTF8 { utf8 in
                reserve(utf8.count)
                (base + count).copyMemory(from: utf8.baseAddress!, byteCount: utf8.count)
                count += utf8.count
            }
            return
        }
        // At most fifteen digits, a sign and a point.
        reserve(17)
        if thousandths < 0 { put(UInt8(ascii: "-")) }
        let scaled = Int(abs(thousandths))
        digits(scaled / 1000)
        guard scaled % 1000 != 0 else { return }
        put(UInt8(ascii: "."))
        var fraction = scaled % 1000
        var places = 3
        while fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        digits(fraction, count: places)
    }

    /// The decimal digits of `value` (not negative, below 10¹⁵), padded with zeros to `count`,
    /// for which room was made.
    private mutating func digits(_ value: Int, count minimum: Int = 1) {
        var length = 1
        var power = 10
        while power <= value {
            length += 1
            power *= 10
        }
        length = max(length, minimum)
        var rest = value
        for at in stride(from: count + length - 1, through: count, by: -1) {
            base.storeBytes(of: UInt8(ascii: "0") + UInt8(rest % 10), toByteOffset: at, as: UInt8.self)
            rest /= 10
        }
        count += length
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, sixteen bytes
    /// at a time, into room for the most the escapes can need (six bytes each).
    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            // An escape is two bytes, a control character's six; eight more let the last bytes
            // be stored eight at a time too.
            reserve(utf8.count * 6 + 2 + 8)
            count = Self.write(utf8, into: base, at: count)
        }
    }

    /// Writes `utf8` quoted and escaped into `output` from `start`, which has room for the most
    /// it can take and eight bytes more; returns where it ended. Sixteen bytes are looked at a
    /// time and copied eight at a time; in a word with bytes to escape, each escape is written
    /// where its byte was and the rest of the word stored again after it. Offsets are bounded by
    /// the room made, so the arithmetic does not check for overflow.
    private static func write(
        _ utf8: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableRawPointer, at start: Int
    ) -> Int {
        typealias Chunk = SIMD16<UInt8>
        let input = UnsafeRawBufferPointer(utf8)
        var at = start
        output.storeBytes(of: UInt8(ascii: "\""), toByteOffset: at, as: UInt8.self)
        at &+= 1
        var index = 0
        while index &+ 16 <= input.count {
            let chunk = input.loadUnaligned(fromByteOffset: index, as: Chunk.self)
            let escaped =
                (chunk .< Chunk(repeating: 0x20)) .| (chunk .== Chunk(repeating: UInt8(ascii: "\"")))
                .| (chunk .== Chunk(repeating: UInt8(ascii: "\\")))
            // `0x80` in each byte to escape, read as two words.
            let marks = Chunk(repeating: 0).replacing(with: 0x80, where: escaped)
            let (low, high) = withUnsafeBytes(of: marks) {
                ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self))
            }
            let words = withUnsafeBytes(of: chunk) {
                ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self))
            }
            at = write(words.0, escaping: low, into: output, at: at)
            at = write(words.1, escaping: high, into: output, at: at)
            index &+= 16
        }
        for byte in input[index...] {
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                at = escape(byte, into: output, at: at)
            } else {
                output.storeBytes(of: byte, toByteOffset: at, as: UInt8.self)
                at &+= 1
            }
        }
        output.storeBytes(of: UInt8(ascii: "\""), toByteOffset: at, as: UInt8.self)
        return at &+ 1
    }

    /// Writes the eight bytes of `word` (in memory order) at `at`, each byte that has `0x80` in
    /// `escaped` as its escape; returns where they ended.
    @inline(__always)
    private static func write(
        _ word: UInt64, escaping escaped: UInt64, into output: UnsafeMutableRawPointer, at start: Int
    ) -> Int {
        var at = start
        output.storeBytes(of: word, toByteOffset: at, as: UInt64.self)
        var escaped = UInt64(littleEndian: escaped)
        let word = UInt64(littleEndian: word)
        // The bytes of the word from `done` on are stored from `at` on.
        var done = 0
        while escaped != 0 {
            let byte = escaped.trailingZeroBitCount &>> 3
            at = escape(UInt8(truncatingIfNeeded: word &>> (byte &* 8)), into: output, at: at &+ byte &- done)
            done = byte &+ 1
            output.storeBytes(of: (word &>> (done &* 8)).littleEndian, toByteOffset: at, as: UInt64.self)
            escaped &= escaped &- 1
        }
        return at &+ 8 &- done
    }

    /// Writes the escape of `byte` at `at`; returns where it ended. A quote or a backslash (most
    /// escapes in a JSON body) is one store of two bytes.
    @inline(__always)
    private static func escape(_ byte: UInt8, into output: UnsafeMutableRawPointer, at: Int) -> Int {
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            output.storeBytes(
                of: (UInt16(byte) &<< 8 | UInt16(UInt8(ascii: "\\"))).littleEndian, toByteOffset: at, as: UInt16.self)
            return at &+ 2
        }
        return escapeControl(byte, into: output, at: at)
    }

    /// Writes the escape of the control character `byte` at `at`; returns where it ended.
    @inline(never)
    private static func escapeControl(_ byte: UInt8, into output: UnsafeMutableRawPointer, at: Int) -> Int {
        let short: UInt8? =
            switch byte {
            case UInt8(ascii: "\n"): UInt8(ascii: "n")
            case UInt8(ascii: "\r"): UInt8(ascii: "r")
            case UInt8(ascii: "\t"): UInt8(ascii: "t")
            default: nil
            }
        output.storeBytes(of: UInt8(ascii: "\\"), toByteOffset: at, as: UInt8.self)
        if let short {
            output.storeBytes(of: short, toByteOffset: at + 1, as: UInt8.self)
            return at + 2
        }
        let hex = Array("0123456789abcdef".utf8)
        let code = [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
        (output + at + 1).copyMemory(from: code, byteCount: code.count)
        return at + 6
    }
}
