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
        field(name, literal: value == value.rounded() ? String(Int(value)) : String(value))
    }

    private mutating func field(_ name: StaticString, literal: String) {
        key(name)
        bytes.append(contentsOf: literal.utf8)
        empty = false
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped. The escapes
    /// are counted first, and the string is written in one piece into room made for it: a body
    /// has a quote every few bytes, and appending the runs between them one by one cost more
    /// than the bytes themselves.
    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            var escapes = 0
            for byte in utf8 where Self.escapes(byte) { escapes += 1 }
            guard escapes > 0 else {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: utf8)
                bytes.append(UInt8(ascii: "\""))
                return
            }
            let start = bytes.count
            // An escape is two bytes, a control character's six.
            bytes.append(contentsOf: repeatElement(0, count: utf8.count + escapes * 5 + 2))
            let end = Self.write(utf8, into: &bytes, at: start)
            bytes.removeLast(bytes.count - end)
        }
    }

    private static func escapes(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Writes `utf8` quoted and escaped into `out` from `start`; returns where it ended.
    private static func write(
        _ utf8: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], at start: Int
    ) -> Int {
        var at = start
        out[at] = UInt8(ascii: "\"")
        at += 1
        for byte in utf8 {
            guard escapes(byte) else {
                out[at] = byte
                at += 1
                continue
            }
            out[at] = UInt8(ascii: "\\")
            switch byte {
            case UInt8(ascii: "\n"): out[at + 1] = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): out[at + 1] = UInt8(ascii: "r")
            case UInt8(ascii: "\t"): out[at + 1] = UInt8(ascii: "t")
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                out[at + 1] = UInt8(ascii: "u")
                out[at + 2] = UInt8(ascii: "0")
                out[at + 3] = UInt8(ascii: "0")
                out[at + 4] = hex.utf8Start[Int(byte >> 4)]
                out[at + 5] = hex.utf8Start[Int(byte & 0xF)]
                at += 4
            default: out[at + 1] = byte
            }
            at += 2
        }
        out[at] = UInt8(ascii: "\"")
        return at + 1
    }
}
