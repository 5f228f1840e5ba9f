//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import CoreNetKit

/// HTTP dates in the three forms RFC 9110 names; pure logic.
@Suite(.timeLimit(.minutes(3))) struct HTTPDateTests {
    @Test func imfFixdateIsReadToTheSecond() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:60 GMT") == Date(timeIntervalSince1970: 1_709_251_200))
    }

    @Test func obsoleteFormsAreStillAccepted() {
        let expected = Date(timeIntervalSince1970: 784_111_777)

        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
    }

    @Test func textThatIsNoHTTPDateIsNil() {
        #expect(HTTPDate.parse("") == nil)
        #expect(HTTPDate.parse("120") == nil)
        #expect(HTTPDate.parse("Sun, 06 Foo 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 28:49:37 GMT") == nil)
    }

    @Test func formattedDatesReadBackTheSame() {
        let dates = [0, 784_111_777, 1_767_225_600, 4_102_444_799].map { Date(timeIntervalSince1970: $0) }

        for date in dates {
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }

    /// Against Foundation's ISO 8601 style, at whole milliseconds (plus less than one, which
    /// both cut): the epoch, before it, leap days, the ends of years and centuries, and a spread
    /// of days from 1600 to 2400, at times through the day.
    @Test func iso8601MatchesFoundationsStyleToTheMillisecond() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var seconds: [Double] = [0, -0.001, -1, -86_400, 951_782_400, 951_868_799.999, 1_709_164_800, 946_684_799.5]
        for day in stride(from: -135_140, through: 157_000, by: 997) {
            seconds.append(Double(day) * 86_400 + Double(day * 7_919 % 86_400_000) / 1000)
        }
        for value in seconds {
            let date = Date(timeIntervalSince1970: value + 0.0002)
            #expect(HTTPDate.iso8601(date) == style.format(date), "\(value)")
        }
    }
}
