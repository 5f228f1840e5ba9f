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

@Suite(.timeLimit(.minutes(3))) struct URLBuilderTests {
    let base = URL(string: "http://api.example.com/v1")!

    @Test(arguments: [
        ("http://api.example.com/v1", "/orders", "http://api.example.com/v1/orders"),
        ("http://api.example.com/v1/", "/orders", "http://api.example.com/v1/orders"),
        ("http://api.example.com/v1/", "orders", "http://api.example.com/v1/orders"),
        ("http://api.example.com/v1", "orders", "http://api.example.com/v1/orders"),
        ("http://api.example.com/v1//", "/orders", "http://api.example.com/v1/orders"),
        ("http://api.example.com/v1", "", "http://api.example.com/v1"),
        ("http://api.example.com/v1", "/orders?page=2", "http://api.example.com/v1/orders?page=2"),
        ("http://api.example.com/v1/", "?page=2", "http://api.example.com/v1?page=2"),
        ("http://api.example.com/v1?key=abc", "/orders", "http://api.example.com/v1/orders?key=abc"),
        ("http://api.example.com/v1/?key=abc", "/orders?page=2", "http://api.example.com/v1/orders?page=2&key=abc"),
        ("http://api.example.com/caf%C3%A9/", "/men%C3%BC", "http://api.example.com/caf%C3%A9/men%C3%BC"),
    ])
    func joiningBaseAndRelativeURLsUsesExactlyOneSlash(base: String, relative: String, expected: String) throws {
        let url = try URLBuilder.url(base: URL(string: base)!, relative: relative, query: [])

        #expect(url.absoluteString == expected)
    }

    @Test(arguments: [
        "http://evil.example.com/steal", "//evil.example.com/steal", "javascript:alert(1)", "file:///etc/passwd",
    ])
    func relativeURLThatChangesSchemeOrHostIsInvalidRequest(relative: String) {
        #expect {
            _ = try URLBuilder.url(base: base, relative: relative, query: [])
        } throws: { error in
            (error as? BaseServerError)?.code == .invalidRequest
        }
    }

    @Test func queryItemsAreSortedByKeyAndArraysRepeatTheKey() {
        let items = URLBuilder.items(["take": 20, "skip": 0, "tag": ["a", "b"], "flag": true, "ratio": 0.5])

        #expect(URLBuilder.encode(items) == "flag=true&ratio=0.5&skip=0&tag=a&tag=b&take=20")
    }

    @Test func reservedCharactersAndNonASCIIArePercentEncodedPerRFC3986() {
        let encoded = URLBuilder.percentEncode("a&b=c+d?e/f g~h.i_j-k🙂")

        #expect(encoded == "a%26b%3Dc%2Bd%3Fe%2Ff%20g~h.i_j-k%F0%9F%99%82")
    }

    @Test func queryItemsFollowTheBaseURLsOwnQuery() throws {
        let url = try URLBuilder.url(
            base: URL(string: "http://api.example.com/v1?key=abc")!, relative: "orders", query: [("take", "5")])

        #expect(url.absoluteString == "http://api.example.com/v1/orders?key=abc&take=5")
    }

    @Test func queryIsAppendedAfterAQueryInTheRelativeURL() throws {
        let url = try URLBuilder.url(base: base, relative: "/orders?page=2", query: [("take", "5")])

        #expect(url.absoluteString == "http://api.example.com/v1/orders?page=2&take=5")
    }

    @Test(arguments: [
        "http://api.example.com/v1", "https://127.0.0.1:8443/x?y=1", "http://localhost", "h2c+x.y-z://a-b.c#f",
        "http://host:/path",
    ])
    func aPlainSchemeAndHostIsRecognisedOnTheBytes(text: String) {
        #expect(URLBuilder.hasPlainSchemeAndHost(text))
        // The fast check never accepts what Foundation would refuse.
        #expect(URL(string: text)?.scheme != nil && URL(string: text)?.host != nil)
    }

    @Test(arguments: [
        "", "http:", "http:/x", "http:///x", "http://user@host/x", "http://[::1]:80/", "http://h%C3%A9/", "1http://h/",
        "http://host:8x/", "mailto:someone@example.com", "/relative/path",
    ])
    func anythingElseIsLeftToFoundation(text: String) {
        #expect(!URLBuilder.hasPlainSchemeAndHost(text))
    }

    @Test func aBaseURLWithoutAHostIsStillAnInvalidRequest() {
        #expect {
            try URLBuilder.url(base: URL(string: "file:///tmp")!, relative: "/x", query: [])
        } throws: { ($0 as? BaseServerError)?.code == .invalidRequest }
    }

    @Test func aRememberedURLIsTheURLAFreshParseGives() {
        let recent = RecentURLs()
        let base = "http://api.example.com/v1"
        // More URLs than slots, so slots are overwritten and collisions replace each other.
        let parts = (0..<(RecentURLs.capacity * 3)).map { ("/orders/\($0)", "page=\($0 % 7)") }
        for (relative, query) in parts {
            recent.remember(URL(string: base + relative + "?" + query)!, base: base, relative: relative, query: query)
        }

        for (relative, query) in parts {
            if let url = recent.url(base: base, relative: relative, query: query) {
                #expect(url.absoluteString == base + relative + "?" + query)
            }
        }
        #expect(parts.contains { recent.url(base: base, relative: $0.0, query: $0.1) != nil })
        #expect(recent.url(base: base, relative: "/never-built", query: "") == nil)
        // The same text split differently is another key.
        #expect(recent.url(base: base + "/orders", relative: "/1", query: "page=1") == nil)
    }

    @Test func aLongURLIsNotKeptAfterItsRequest() {
        let recent = RecentURLs()
        let base = "http://api.example.com"
        let query = "q=" + String(repeating: "a", count: RecentURLs.longestText)
        recent.remember(URL(string: base + "/search?" + query)!, base: base, relative: "/search", query: query)

        #expect(recent.url(base: base, relative: "/search", query: query) == nil)
    }

    @Test func buildingTheSameURLAgainGivesAnEqualURL() throws {
        let first = try URLBuilder.url(base: base, relative: "/orders", query: [("page", "2")])
        let second = try URLBuilder.url(base: base, relative: "/orders", query: [("page", "2")])
        let other = try URLBuilder.url(base: base, relative: "/orders", query: [("page", "3")])

        #expect(first == second)
        #expect(first.absoluteString == "http://api.example.com/v1/orders?page=2")
        #expect(other.absoluteString == "http://api.example.com/v1/orders?page=3")
    }

    @Test func urlsBuiltConcurrentlyAreEachTheirOwn() async throws {
        let base = self.base
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        let page = (task * 200 + index) % 97
                        let url = try URLBuilder.url(base: base, relative: "/orders", query: [("page", "\(page)")])
                        #expect(url.absoluteString == "http://api.example.com/v1/orders?page=\(page)")
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func anInvalidURLIsRefusedEveryTime() {
        for _ in 0..<2 {
            #expect {
                try URLBuilder.url(base: URL(string: "file:///tmp")!, relative: "/x", query: [])
            } throws: { ($0 as? BaseServerError)?.code == .invalidRequest }
        }
    }
}
