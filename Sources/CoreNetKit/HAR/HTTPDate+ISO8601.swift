//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// HAR's timestamps: ISO 8601 in UTC, written without Foundation's style for the years 0–9999.
extension HTTPDate {
    /// `date` in UTC as ISO 8601 with milliseconds truncated (`2026-11-27T13:34:55.123Z`, like JS `toISOString()`).
    static func iso8601(_ date: Date) -> String {
        withISO8601(date) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the ASCII bytes of ``iso8601(_:)``, written on the stack for years 0–9999 (Foundation's
    /// style is ten times slower), so a HAR writer needs no string per entry.
    static func withISO8601<Result>(_ date: Date, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let written = withUnsafeMutableBytes(of: &text) { iso8601(date, into: $0) }
        guard written else { return Array(iso8601Style.format(date).utf8).withUnsafeBytes(body) }
        return withUnsafeBytes(of: &text, body)
    }

    /// Writes the 24 bytes of ``iso8601(_:)`` into `text`; `false` outside the years 0–9999.
    private static func iso8601(_ date: Date, into text: UnsafeMutableRawBufferPointer) -> Bool {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard abs(milliseconds) < 2.5e14 else { return false }
        var days = Int(milliseconds) / 86_400_000
        var inDay = Int(milliseconds) % 86_400_000
        if inDay < 0 {
            inDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = civil(daysSinceEpoch: days)
        guard (0...9999).contains(year) else { return false }
        text.copyBytes(from: "0000-00-00T00:00:00.000Z".utf8)
        func put(_ value: Int, _ count: Int, at end: Int) {
            var value = value
            for index in stride(from: end - 1, through: end - count, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, 4, at: 4)
        put(month, 2, at: 7)
        put(day, 2, at: 10)
        put(inDay / 3_600_000, 2, at: 13)
        put(inDay / 60_000 % 60, 2, at: 16)
        put(inDay / 1000 % 60, 2, at: 19)
        put(inDay % 1000, 3, at: 23)
        return true
    }

    /// Foundation's form of ``iso8601(_:)``, for a year past 0–9999.
    private static let iso8601Style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's civil-from-days).
    static func civil(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
