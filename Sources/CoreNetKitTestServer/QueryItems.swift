//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The query items of a request, percent-decoded, in order. `+` is kept as `+` (not a space).
struct QueryItems {
    /// `(name, value)` pairs; an item without `=` has an empty value.
    let items: [(String, String)]

    /// Parses a raw query string (the part after `?`).
    init(_ rawQuery: String?) {
        guard let rawQuery, !rawQuery.isEmpty else {
            self.items = []
            return
        }
        self.items = rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { item in
            if let equals = item.firstIndex(of: "=") {
                return (Self.decode(item[..<equals]), Self.decode(item[item.index(after: equals)...]))
            }
            return (Self.decode(item), "")
        }
    }

    /// Percent-decodes `text`, leaving it as-is when it is not valid percent-encoding.
    static func decode(_ text: Substring) -> String {
        let string = String(text)
        guard string.contains("%") else { return string }
        return string.removingPercentEncoding ?? string
    }

    /// The value of the first item called `name`.
    subscript(name: String) -> String? {
        self.items.first { $0.0 == name }?.1
    }

    /// The first `name` item as an integer in `range`, `defaultValue` when absent.
    func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(RouteError) -> Int {
        guard let text = self[name] else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw .invalidParameter(name, "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// The first `name` item as a boolean (`true`/`false`/`1`/`0`), `defaultValue` when absent.
    func bool(_ name: String, default defaultValue: Bool) throws(RouteError) -> Bool {
        guard let text = self[name] else { return defaultValue }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw .invalidParameter(name, "true or false")
        }
    }
}
