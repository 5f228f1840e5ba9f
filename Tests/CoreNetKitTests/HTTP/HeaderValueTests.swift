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

/// Header values are read with the spaces and tabs HTTP allows around them.
@Suite(.timeLimit(.minutes(3))) struct HeaderValueTests {
    @Test func spacesAndTabsAroundAValueAreTrimmedAndNothingElse() {
        #expect(" \t 42 \t".trimmingHTTPWhitespace == "42")
        #expect("gzip".trimmingHTTPWhitespace == "gzip")
        #expect("  a b  ".trimmingHTTPWhitespace == "a b")
        #expect(" \t ".trimmingHTTPWhitespace == "")
        #expect("".trimmingHTTPWhitespace == "")
        #expect(" é ".trimmingHTTPWhitespace == "é")
        #expect("x\n".trimmingHTTPWhitespace == "x\n")
    }

    @Test func aBodysLengthIsReadFromContentLengthWithItsWhitespaceAndNotWhenItIsEncoded() {
        let plain = TransportResponse(statusCode: 200, headers: ["Content-Length": " \t1024 "])
        #expect(plain.expectedLength == 1024)
        let identity = TransportResponse(
            statusCode: 200, headers: ["Content-Length": "7", "Content-Encoding": " identity "])
        #expect(identity.expectedLength == 7)
        let gzip = TransportResponse(statusCode: 200, headers: ["Content-Length": "7", "Content-Encoding": " gzip"])
        #expect(gzip.expectedLength == nil)
        let negative = TransportResponse(statusCode: 200, headers: ["Content-Length": "-1"])
        #expect(negative.expectedLength == nil)
        let none = TransportResponse(statusCode: 200, headers: ["Content-Length": "  "])
        #expect(none.expectedLength == nil)
    }
}
