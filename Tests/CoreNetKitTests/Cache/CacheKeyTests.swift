//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Crypto
import Foundation
import Testing

@testable import CoreNetKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keys, Vary digests and the SHA-256 they rest on: pure logic.
@Suite(.timeLimit(.minutes(3))) struct CacheKeyTests {
    @Test func sha256MatchesTheFIPSTestVectors() {
        #expect(CoreNetKit.SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(CoreNetKit.SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            CoreNetKit.SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// The library keeps its own SHA-256 (it takes no dependency); the tests trust swift-crypto's.
    @Test func sha256AgreesWithSwiftCryptoAtEveryBlockBoundary() {
        var bytes: [UInt8] = []
        var state: UInt32 = 0x1234_5678
        for length in 0...300 {
            #expect(CoreNetKit.SHA256.hex(bytes: bytes) == Crypto.SHA256.hash(data: bytes).hex, "length \(length)")
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(truncatingIfNeeded: state >> 24))
        }
        let large = [UInt8](repeating: 0xA5, count: 1 << 20)
        #expect(CoreNetKit.SHA256.hex(bytes: large) == Crypto.SHA256.hash(data: large).hex)
        #expect(CoreNetKit.SHA256.hex("héllo ✓") == Crypto.SHA256.hash(data: Array("héllo ✓".utf8)).hex)
    }

    @Test func keyHoldsMethodAndURLWithoutTheFragment() {
        let key = CacheKey(method: .get, url: URL(string: "https://h.example/a?x=1#top")!)

        #expect(key.rawValue == "GET https://h.example/a?x=1")
        #expect(key.digest.count == 64)
    }

    @Test func keyDescriptionRedactsTokensInTheQuery() {
        let key = CacheKey(method: .get, url: URL(string: "https://h.example/a?access_token=sEcReT&page=2")!)

        #expect(!key.description.contains("sEcReT"))
        #expect(key.description.contains("page=2"))
    }

    @Test func varyDigestDependsOnTheNamedHeadersOnlyAndHoldsNoValue() {
        var english = URLRequest(url: URL(string: "https://h.example/a")!)
        english.setValue("en", forHTTPHeaderField: "Accept-Language")
        english.setValue("Bearer sEcReT", forHTTPHeaderField: "Authorization")
        var otherToken = english
        otherToken.setValue("Bearer other", forHTTPHeaderField: "Authorization")
        var french = english
        french.setValue("fr", forHTTPHeaderField: "Accept-Language")

        let digest = CachedResponse.variant(of: english, names: ["accept-language"])

        #expect(digest == CachedResponse.variant(of: otherToken, names: ["accept-language"]))
        #expect(digest != CachedResponse.variant(of: french, names: ["accept-language"]))
        #expect(CachedResponse.variant(of: english, names: ["authorization"])?.contains("sEcReT") == false)
        #expect(CachedResponse.variant(of: english, names: []) == nil)
    }

    @Test func varyNamesAreReadCaseInsensitivelyAcrossFields() {
        let headers: HTTPHeaders = ["Vary": "Accept-Language, ACCEPT", "vary": "accept-language"]

        #expect(CachedResponse.varyNames(headers) == ["accept", "accept-language"])
    }
}
