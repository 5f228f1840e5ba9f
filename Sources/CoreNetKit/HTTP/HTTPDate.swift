//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`) and the obsolete RFC 850
/// and asctime forms. IMF-fixdate is parsed by hand, as the cache reads several per response and a `DateFormatter`
/// costs far more than the parse; only the obsolete forms, which a recipient must still accept, use formatters.
enum HTTPDate {
    private static let obsoleteFormats = ["EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date `text` names, or `nil` when it is none of the three forms.
    static func parse(_ text: String) -> Date? {
        parseIMFFixdate(text) ?? obsoleteFormats.lazy.compactMap { formatter($0).date(from: text) }.first
    }

    /// `date` in the IMF-fixdate form.
    static func format(_ date: Date) -> String {
        formatter("EEE, dd MMM yyyy HH:mm:ss zzz").string(from: date)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`: fixed positions.
    private static func parseIMFFixdate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "),
            bytes[25...] == Array(" GMT".utf8)[...],
            let day = number(bytes, 5, 2), let year = number(bytes, 12, 4), let hour = number(bytes, 17, 2),
            let minute = number(bytes, 20, 2), let second = number(bytes, 23, 2),
            bytes[7] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "),
            bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"),
            let month = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)).map({ $0 + 1 }),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for byte in bytes[start..<start + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's days-from-civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }
}
