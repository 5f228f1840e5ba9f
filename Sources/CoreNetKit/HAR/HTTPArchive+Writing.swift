//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Writes the HAR entry of an exchange as JSON by hand, for the recorder, without building the
/// ``HTTPArchive/Entry`` first: `JSONEncoder` costs about four times as much per entry (generic
/// boxing, a dictionary per object), and building the entry a third more than writing it, which
/// a recorder pays on every exchange. What it writes decodes to `HTTPArchive.Entry(exchange,
/// requestId:)`: both take each value from the same helpers (HTTPArchive+Exchange.swift), and
/// the tests compare the two for every kind of exchange.
///
/// It writes into memory of its own through a pointer, after one check of the room left per
/// piece: an `Array`'s `append` asks the runtime whether its storage is shared at every byte,
/// which cost more than the bytes. The members' names and the punctuation between them are
/// written as one literal each: every object begins with a member that is always there, so
/// each later one starts with its comma.
struct HARWriter: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// How many bytes were written.
    private(set) var count = 0

    /// A writer with room for the entry of `exchange` and `extra` bytes, the bodies' worst case
    /// (every byte a six-byte escape) included: no growing on the way.
    init(roomFor exchange: MonitoredExchange, extra: Int = 0) {
        let bodies = (exchange.responseBody?.utf8Count ?? 0) + (exchange.requestBody?.utf8Count ?? 0)
        capacity = 2048 + 6 * bodies + extra
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// The entry of `exchange` as one line of JSON.
    static func encode(_ exchange: MonitoredExchange, requestId: String?) -> [UInt8] {
        var writer = HARWriter(roomFor: exchange)
        writer.entry(exchange, requestId: requestId)
        return writer.withBytes(from: 0) { [UInt8]($0) }
    }

    /// Calls `body` with the bytes written from `start` on.
    func withBytes<Result>(from start: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base + start, count: count - start))
    }

    /// Writes the entry of `exchange`, an attempt of the request `requestId` or an answer of the
    /// cache: what `HTTPArchive.Entry(exchange, requestId:)` holds.
    mutating func entry(_ exchange: MonitoredExchange, requestId: String?) {
        typealias Entry = HTTPArchive.Entry
        let (blocked, wait, receive) = Entry.microseconds(exchange)
        put(#"{"startedDateTime":""#)
        // Digits, `-`, `:`, `T`, `.` and `Z` (or `+` before a long year): nothing to escape.
        HTTPDate.withISO8601(exchange.startedAt) { put($0) }
        put(UInt8(ascii: "\""))
        put(#","time":"#)
        milliseconds(blocked + wait + receive)
        put(#","request":"#)
        request(exchange)
        put(#","response":"#)
        response(exchange)
        put(#","cache":{"#)
        if let comment = Entry.cacheComment(exchange) {
            put(#""comment":"#)
            string(comment)
        }
        put(#"},"timings":{"blocked":"#)
        milliseconds(blocked)
        put(#","dns":-1,"connect":-1,"send":0,"wait":"#)
        milliseconds(wait)
        put(#","receive":"#)
        milliseconds(receive)
        put(#","ssl":-1}"#)
        field(#","comment":"#, Entry.comment(exchange))
        field(#","_requestId":"#, requestId)
        if let attempt = Entry.attempt(exchange) {
            put(#","_attempt":"#)
            integer(attempt)
        }
        field(#","_fromCache":"#, Entry.fromCache(exchange))
        field(#","_error":"#, Entry.error(exchange))
        put(UInt8(ascii: "}"))
    }

    private mutating func request(_ exchange: MonitoredExchange) {
        put(#"{"method":"#)
        string(exchange.method.rawValue)
        put(#","url":"#)
        string(exchange.url)
        put(#","httpVersion":"#)
        string(HTTPArchive.httpVersion(exchange))
        put(#","cookies":["#)
        for (index, name) in exchange.sentCookies.enumerated() {
            if index > 0 { put(UInt8(ascii: ",")) }
            put(#"{"name":"#)
            string(name)
            put(#","value":"#)
            string(LogRedactor.mask)
            put(UInt8(ascii: "}"))
        }
        put(#"],"headers":"#)
        fields(exchange.requestHeaders.fields)
        put(#","queryString":"#)
        fields(HTTPArchive.Request.queryItems(of: exchange.url).map { (name: $0.name, value: $0.value) })
        if let body = exchange.requestBody {
            put(#","postData":{"mimeType":"#)
            string(body.mimeType)
            put(#","text":"#)
            body.withUTF8 { string($0) }
            if let parameters = body.parameters {
                put(#","params":["#)
                for (index, parameter) in parameters.enumerated() {
                    if index > 0 { put(UInt8(ascii: ",")) }
                    put(#"{"name":"#)
                    string(parameter.name)
                    field(#","value":"#, parameter.value)
                    field(#","fileName":"#, parameter.fileName)
                    field(#","contentType":"#, parameter.contentType)
                    put(UInt8(ascii: "}"))
                }
                put(UInt8(ascii: "]"))
            }
            field(#","comment":"#, HTTPArchive.comment(body))
            put(UInt8(ascii: "}"))
        }
        put(#","headersSize":-1,"bodySize":"#)
        integer(exchange.requestBody?.size ?? 0)
        put(UInt8(ascii: "}"))
    }

    private mutating func response(_ exchange: MonitoredExchange) {
        typealias Response = HTTPArchive.Response
        put(#"{"status":"#)
        integer(exchange.statusCode ?? 0)
        put(#","statusText":"#)
        string(HTTPArchive.reasonPhrase(exchange.statusCode ?? 0))
        put(#","httpVersion":"#)
        string(HTTPArchive.httpVersion(exchange))
        put(#","cookies":["#)
        for (index, line) in exchange.setCookies.enumerated() {
            if index > 0 { put(UInt8(ascii: ",")) }
            cookie(HTTPArchive.Cookie(setCookie: line))
        }
        put(#"],"headers":"#)
        fields(exchange.responseHeaders.fields)
        let body = exchange.responseBody
        put(#","content":{"size":"#)
        integer(body?.size ?? 0)
        put(#","mimeType":"#)
        string(Response.mimeType(exchange))
        if let body {
            put(#","text":"#)
            body.withUTF8 { string($0) }
        }
        if body?.isBase64 == true { put(#","encoding":"base64""#) }
        if body?.isTruncated == true { put(#","comment":"truncated""#) }
        put(#"},"redirectURL":"#)
        string(Response.redirectURL(exchange))
        put(#","headersSize":-1,"bodySize":"#)
        integer(Response.bodySize(exchange))
        field(#","comment":"#, exchange.error?.errorDescription)
        put(UInt8(ascii: "}"))
    }

    private mutating func cookie(_ cookie: HTTPArchive.Cookie) {
        put(#"{"name":"#)
        string(cookie.name)
        put(#","value":"#)
        string(cookie.value)
        field(#","path":"#, cookie.path)
        field(#","domain":"#, cookie.domain)
        field(#","expires":"#, cookie.expires)
        if let httpOnly = cookie.httpOnly { put(httpOnly ? #","httpOnly":true"# : #","httpOnly":false"#) }
        if let secure = cookie.secure { put(secure ? #","secure":true"# : #","secure":false"#) }
        field(#","comment":"#, cookie.comment)
        put(UInt8(ascii: "}"))
    }

    /// `fields` as a list of `{"name":…,"value":…}` objects.
    private mutating func fields(_ fields: [(name: String, value: String)]) {
        put(UInt8(ascii: "["))
        for (index, field) in fields.enumerated() {
            put(index == 0 ? #"{"name":"# : #",{"name":"#)
            string(field.name)
            put(#","value":"#)
            string(field.value)
            put(UInt8(ascii: "}"))
        }
        put(UInt8(ascii: "]"))
    }

    // MARK: JSON

    /// Makes room for `bytes` more bytes.
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
    mutating func put(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends `text`.
    mutating func put(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount)
        (base + count).copyMemory(from: text.utf8Start, byteCount: text.utf8CodeUnitCount)
        count += text.utf8CodeUnitCount
    }

    /// Appends `bytes`.
    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { put($0) }
    }

    /// Appends `bytes`.
    mutating func put(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        if let start = bytes.baseAddress { (base + count).copyMemory(from: start, byteCount: bytes.count) }
        count += bytes.count
    }

    /// `name` (a member's name with its quotes, colon and leading comma) and `value` as a JSON
    /// string, when there is a value.
    private mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        put(name)
        string(value)
    }

    /// `value` as a JSON number.
    private mutating func integer(_ value: Int) {
        // At most nineteen digits and a sign.
        reserve(20)
        if value < 0 { put(UInt8(ascii: "-")) }
        digits(value.magnitude)
    }

    /// `microseconds` (not negative) as milliseconds: a whole number and up to three decimals,
    /// which reads back as the `Double` nearest the decimal, as `HTTPArchive.Entry` computes it.
    private mutating func milliseconds(_ microseconds: Int) {
        reserve(22)
        digits(UInt(microseconds) / 1000)
        var fraction = UInt(microseconds) % 1000
        guard fraction != 0 else { return }
        put(UInt8(ascii: "."))
        var places = 3
        while fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        digits(fraction, count: places)
    }

    /// The decimal digits of `value`, padded with zeros to `count`, for which room was made.
    private mutating func digits(_ value: UInt, count minimum: Int = 1) {
        var length = 1
        var rest = value / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        length = max(length, minimum)
        rest = value
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
        text.withUTF8 { string($0) }
    }

    /// `utf8` as a JSON string.
    private mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) {
        // An escape is two bytes, a control character's six; eight more let the last bytes
        // be stored eight at a time too.
        reserve(utf8.count * 6 + 2 + 8)
        count = Self.write(utf8, into: base, at: count)
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
    private static func escape(_ byte: UInt8, into output: UnsafeMutableRawPointer, at: Int) -> Int {
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            output.storeBytes(
                of: (UInt16(byte) &<< 8 | UInt16(UInt8(ascii: "\\"))).littleEndian, toByteOffset: at, as: UInt16.self)
            return at &+ 2
        }
        return escapeControl(byte, into: output, at: at)
    }

    /// Writes the escape of the control character `byte` at `at`; returns where it ended.
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
