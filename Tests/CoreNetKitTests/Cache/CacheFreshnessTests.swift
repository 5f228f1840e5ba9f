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

/// Freshness arithmetic and `Cache-Control` parsing, without I/O.
@Suite(.timeLimit(.minutes(3))) struct CacheFreshnessTests {
    private let stored = Date(timeIntervalSince1970: 1_767_225_600)

    private func entry(_ headers: HTTPHeaders) -> CachedResponse {
        CachedResponse(statusCode: 200, headers: headers, body: Data("{}".utf8), url: nil, storedAt: stored)
    }

    private func freshness(
        _ headers: HTTPHeaders, after seconds: Double, heuristic: HeuristicFreshness? = nil
    ) -> CacheFreshness {
        CacheFreshness(entry(headers), now: stored.addingTimeInterval(seconds), heuristic: heuristic)
    }

    @Test func directivesAreCaseInsensitiveKeepTheFirstValueAndIgnoreCommasInQuotes() {
        let control = CacheControl(["Max-Age=60, no-cache=\"Set-Cookie, X-A\"", "max-age=5, PRIVATE"])

        #expect(control.seconds("max-age") == 60)
        #expect(control.has("no-cache"))
        #expect(control.has("private"))
        #expect(!control.has("x-a\""))
    }

    @Test func anInvalidMaxAgeMeansStale() {
        let control = CacheControl(["max-age=soon"])

        #expect(control.seconds("max-age") == 0)
        #expect(!freshness(["Cache-Control": "max-age=soon"], after: 0).isFresh(for: CacheControl([])))
    }

    @Test func maxAgeWinsOverExpires() {
        let headers: HTTPHeaders = [
            "Cache-Control": "max-age=10", "Date": HTTPDate.format(stored),
            "Expires": HTTPDate.format(stored.addingTimeInterval(1000)),
        ]

        #expect(freshness(headers, after: 0).lifetime == 10)
    }

    @Test func anExpiresThatIsNotADateMeansAlreadyExpired() {
        #expect(!freshness(["Expires": "0"], after: 0).isFresh(for: CacheControl([])))
    }

    @Test func withoutMaxAgeOrExpiresTheEntryIsStaleUnlessTheHeuristicIsOn() {
        let headers: HTTPHeaders = [
            "Date": HTTPDate.format(stored), "Last-Modified": HTTPDate.format(stored.addingTimeInterval(-1000)),
        ]

        let off = freshness(headers, after: 50)
        let on = freshness(headers, after: 50, heuristic: HeuristicFreshness())
        let capped = freshness(headers, after: 5, heuristic: HeuristicFreshness(fraction: 0.5, maximum: .seconds(20)))

        #expect(!off.isFresh(for: CacheControl([])))
        #expect(on.lifetime == 100)
        #expect(on.isFresh(for: CacheControl([])))
        #expect(capped.lifetime == 20)
    }

    @Test func anEntryStoredWithoutFreshnessHeadersIsStaleAndStillFallsBack() {
        let old = freshness(["ETag": "\"a\""], after: 1)

        #expect(!old.isFresh(for: CacheControl([])))
        #expect(!old.allowsStaleWhileRevalidate)
        #expect(!old.allowsStaleIfError)
        #expect(old.allowsFallback)
    }

    @Test func ageIsTheLargerOfAgeAndApparentAgePlusTheTimeSinceStoring() {
        let behind: HTTPHeaders = ["Date": HTTPDate.format(stored.addingTimeInterval(-30)), "Age": "10"]
        let withAge: HTTPHeaders = ["Date": HTTPDate.format(stored), "Age": "40"]

        #expect(freshness(behind, after: 5).age == 35)
        #expect(freshness(withAge, after: 5).age == 45)
    }

    @Test func aRequestMaxAgeLimitsTheAgeItAccepts() {
        let fresh = freshness(["Cache-Control": "max-age=100"], after: 30)

        #expect(fresh.isFresh(for: CacheControl(requestHeaders: [:])))
        #expect(fresh.isFresh(for: CacheControl(requestHeaders: ["cache-control": "max-age=60"])))
        #expect(!fresh.isFresh(for: CacheControl(requestHeaders: ["Cache-Control": "max-age=20"])))
        #expect(!fresh.isFresh(for: CacheControl(requestHeaders: ["Cache-Control": "max-age=0"])))
        #expect(!fresh.isFresh(for: CacheControl(requestHeaders: ["Pragma": "no-cache"])))
    }

    @Test func mustRevalidateForbidsEveryStaleUseButNotAFreshFallback() {
        let headers: HTTPHeaders = [
            "Cache-Control": "max-age=10, must-revalidate, stale-while-revalidate=100, stale-if-error=100"
        ]

        #expect(freshness(headers, after: 5).allowsFallback)
        #expect(!freshness(headers, after: 20).allowsFallback)
        #expect(!freshness(headers, after: 20).allowsStaleWhileRevalidate)
        #expect(!freshness(headers, after: 20).allowsStaleIfError)
    }

    @Test func noCacheIsNeverFreshNorServedStaleButStillFallsBackOffline() {
        let noCache = freshness(["Cache-Control": "no-cache, max-age=100, stale-if-error=100"], after: 1)

        #expect(!noCache.isFresh(for: CacheControl([])))
        #expect(!noCache.allowsStaleIfError)
        #expect(noCache.allowsFallback)
    }

    @Test func staleWindowsStartWhenTheLifetimeEnds() {
        let headers: HTTPHeaders = ["Cache-Control": "max-age=10, stale-while-revalidate=20, stale-if-error=50"]

        #expect(freshness(headers, after: 25).allowsStaleWhileRevalidate)
        #expect(!freshness(headers, after: 31).allowsStaleWhileRevalidate)
        #expect(freshness(headers, after: 60).allowsStaleIfError)
        #expect(!freshness(headers, after: 61).allowsStaleIfError)
    }

    @Test func aFileWrittenInTodaysFormatLoadsAndItsHeadersGiveTheFreshness() throws {
        let header = #"{"status":200,"headers":[["Cache-Control","max-age=60"]],"storedAt":1767225600,"bodyLength":2}"#
        var bytes = Data("CNKCACHE1\n".utf8)
        bytes.append(contentsOf: [0, 0, 0, UInt8(header.utf8.count)])
        bytes.append(Data(header.utf8))
        bytes.append(Data("{}".utf8))

        let loaded = try #require(CacheFileFormat.decode(bytes))
        let freshness = CacheFreshness(loaded, now: stored.addingTimeInterval(30), heuristic: nil)

        #expect(loaded.storedAt == stored)
        #expect(freshness.lifetime == 60)
        #expect(freshness.isFresh(for: CacheControl([])))
    }
}
