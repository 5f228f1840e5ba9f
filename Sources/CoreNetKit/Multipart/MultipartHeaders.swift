//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The header block of each part, built so that no name, filename or value can end its line.
enum MultipartHeaders {
    /// `Content-Disposition`, `Content-Type` and the part's own headers (sorted by name), each ending in CRLF, then the
    /// empty line. Throws ``BaseServerError`` `invalidRequest` for a name, value or MIME type that could split the
    /// header, or a header the form owns.
    static func block(for part: MultipartData.Part) throws -> Data {
        var disposition = "form-data; name=\"" + quoted(part.name).text + "\""
        if let filename = part.filename {
            let fallback = quoted(filename)
            disposition += "; filename=\"" + fallback.text + "\""
            if !fallback.isExact { disposition += "; filename*=" + extendedValue(filename) }
        }
        var lines = ["Content-Disposition: " + disposition]
        if let mimeType = part.resolvedMimeType {
            guard !mimeType.isEmpty, RequestEncoder.isValidHeader(value: mimeType) else {
                throw BaseServerError.invalidRequest(
                    "the MIME type of the part \"\(quoted(part.name).text)\" is not allowed")
            }
            lines.append("Content-Type: " + mimeType)
        }
        for (name, value) in part.headers.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            let lowercased = name.lowercased()
            guard lowercased != "content-disposition", lowercased != "content-type" else {
                throw BaseServerError.invalidRequest(
                    "the part \"\(quoted(part.name).text)\" sets \(name) in headers; use its name, filename and mimeType"
                )
            }
            guard RequestEncoder.isValidHeader(name: name), RequestEncoder.isValidHeader(value: value) else {
                throw BaseServerError.invalidRequest(
                    "the part \"\(quoted(part.name).text)\" has a header name or value that is not allowed")
            }
            lines.append(name + ": " + value)
        }
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// `value` as the inside of a quoted-string that can't end its header: `"` → `%22`, CR → `%0D`, LF → `%0A`, other
    /// controls → `%XX` (HTML form encoding), `\` → `\\`, the rest UTF-8. `isExact` is false when a reader that only
    /// unquotes would not get `value` back.
    static func quoted(_ value: String) -> (text: String, isExact: Bool) {
        var text = String.UnicodeScalarView()
        var isExact = true
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x22, 0x00...0x1F, 0x7F:
                text.append(contentsOf: percentEncoded(UInt8(scalar.value)).unicodeScalars)
                isExact = false
            case 0x5C:
                text.append(contentsOf: "\\\\".unicodeScalars)
                isExact = false
            default:
                text.append(scalar)
            }
        }
        return (String(text), isExact)
    }

    /// `value` as an RFC 8187 extended value: `UTF-8''` then its UTF-8 bytes, those outside `attr-char` %-encoded.
    static func extendedValue(_ value: String) -> String {
        var result = "UTF-8''"
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
                UInt8(ascii: "&"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
                UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += percentEncoded(byte)
            }
        }
        return result
    }

    private static func percentEncoded(_ byte: UInt8) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        return "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
    }
}
