//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// The directives of `Cache-Control` fields (RFC 9111 §5.2), names lower-cased.
///
/// A repeated directive keeps its first value; quotes are dropped. A field-name list (`no-cache="Set-Cookie"`) counts
/// as the bare directive, the safe reading for a client cache.
struct CacheControl: Sendable, Equatable {
    private var directives: [String: String?] = [:]

    init(_ values: [String]) {
        for value in values {
            for part in Self.split(value) {
                let pieces = part.split(separator: "=", maxSplits: 1)
                guard let rawName = pieces.first else { continue }
                let name = rawName.trimmingHTTPWhitespace.lowercased()
                guard !name.isEmpty, directives[name] == nil else { continue }
                var argument = pieces.count == 2 ? pieces[1].trimmingHTTPWhitespace : nil
                if let text = argument, text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                    argument = text.dropFirst().dropLast()
                }
                directives[name] = .some(argument.map(String.init))
            }
        }
    }

    /// The request's directives: its `Cache-Control` headers, or `Pragma: no-cache` when it has none.
    init(requestHeaders headers: [String: String]) {
        let cacheControl = headers.filter { $0.key.caseInsensitiveCompare("Cache-Control") == .orderedSame }
        let pragma = headers.first { $0.key.caseInsensitiveCompare("Pragma") == .orderedSame }?.value
        let noCache = pragma?.lowercased().contains("no-cache") == true ? ["no-cache"] : []
        self.init(cacheControl.isEmpty ? noCache : Array(cacheControl.values))
    }

    func has(_ name: String) -> Bool { directives[name] != nil }

    /// The directive `name` as delta-seconds; `nil` when absent, `0` when invalid (RFC 9111 §1.2.2: means "stale").
    func seconds(_ name: String) -> Int? {
        guard let entry = directives[name] else { return nil }
        guard let text = entry, let value = Int(text), value >= 0 else { return 0 }
        return value
    }

    /// Splits a field value at commas outside quoted strings.
    private static func split(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var quoted = false
        for index in value.indices {
            let character = value[index]
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                parts.append(value[start..<index])
                start = value.index(after: index)
            }
        }
        parts.append(value[start...])
        return parts
    }
}
