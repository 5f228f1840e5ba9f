//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A parsed header value of the form `value; name=token; name="quoted \" string"`, as used by
/// `Content-Type` and `Content-Disposition` (RFC 9110 §5.6.6, RFC 6266, RFC 7578).
struct HeaderParameters {
    /// The part before the first `;`, trimmed.
    let value: String
    /// Parameters in order; names lowercased, quoted values unescaped.
    let parameters: [(String, String)]

    /// Parses `header`; returns nil when a quoted string is unterminated.
    init?(_ header: String) {
        let scalars = Array(header.unicodeScalars)
        var index = 0
        func skipSpaces() {
            while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        }
        var head = String.UnicodeScalarView()
        while index < scalars.count, scalars[index] != ";" {
            head.append(scalars[index])
            index += 1
        }
        self.value = String(head).trimmingCharacters(in: .whitespaces)
        var parameters: [(String, String)] = []
        while index < scalars.count {
            index += 1  // skip ';'
            skipSpaces()
            var name = String.UnicodeScalarView()
            while index < scalars.count, scalars[index] != "=", scalars[index] != ";" {
                name.append(scalars[index])
                index += 1
            }
            let parameterName = String(name).trimmingCharacters(in: .whitespaces).lowercased()
            guard index < scalars.count, scalars[index] == "=" else {
                if !parameterName.isEmpty { parameters.append((parameterName, "")) }
                continue
            }
            index += 1  // skip '='
            skipSpaces()
            var parameterValue = String.UnicodeScalarView()
            if index < scalars.count, scalars[index] == "\"" {
                index += 1
                var closed = false
                while index < scalars.count {
                    let scalar = scalars[index]
                    index += 1
                    if scalar == "\"" {
                        closed = true
                        break
                    }
                    if scalar == "\\", index < scalars.count {
                        parameterValue.append(scalars[index])
                        index += 1
                    } else {
                        parameterValue.append(scalar)
                    }
                }
                guard closed else { return nil }
                while index < scalars.count, scalars[index] != ";" { index += 1 }
                parameters.append((parameterName, String(parameterValue)))
            } else {
                while index < scalars.count, scalars[index] != ";" {
                    parameterValue.append(scalars[index])
                    index += 1
                }
                parameters.append((parameterName, String(parameterValue).trimmingCharacters(in: .whitespaces)))
            }
        }
        self.parameters = parameters
    }

    /// The first parameter called `name` (case-insensitive).
    subscript(name: String) -> String? {
        let lowercased = name.lowercased()
        return self.parameters.first { $0.0 == lowercased }?.1
    }

    /// Decodes an RFC 8187 extended value (`UTF-8''%E2%82%AC.txt`); nil when malformed or not UTF-8.
    static func decodeExtendedValue(_ text: String) -> String? {
        let pieces = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return nil }
        let charset = pieces[0].lowercased()
        guard charset == "utf-8" || charset == "us-ascii" else { return nil }
        return String(pieces[2]).removingPercentEncoding
    }
}
