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
}
