//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

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
