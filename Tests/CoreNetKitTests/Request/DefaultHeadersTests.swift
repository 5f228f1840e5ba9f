//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import Foundation
import Testing

/// The default headers fill in what a request lacks, whatever the spelling of what it has; pure logic.
@Suite(.timeLimit(.minutes(3))) struct DefaultHeadersTests {
    @Test func aHeaderTheRequestSetsInAnySpellingIsKept() {
        let preparator = DefaultHeadersPreparator(userAgent: "Kit/1", extraHeaders: ["X-App": "demo"])
        var request = ServerRequest(method: .get, baseUrl: URL(string: "https://example.com")!, relativeUrl: "/a")
        request.headers = ["accept": "text/csv", "USER-AGENT": "Mine/2"]
        preparator.prepare(inPlace: &request)
        #expect(request.headers == ["accept": "text/csv", "USER-AGENT": "Mine/2", "X-App": "demo"])
    }

    @Test func aRequestWithoutHeadersGetsThemAll() {
        let preparator = DefaultHeadersPreparator(userAgent: "Kit/1")
        var request = ServerRequest(method: .get, baseUrl: URL(string: "https://example.com")!, relativeUrl: "/a")
        preparator.prepare(inPlace: &request)
        #expect(request.headers == ["Accept": "application/json", "User-Agent": "Kit/1"])
    }
}
