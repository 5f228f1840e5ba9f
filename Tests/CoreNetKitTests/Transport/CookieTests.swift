//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cookies behave the same on both transports: none are kept unless the configuration names a
/// ``NetworkConfiguration/cookieStorage``; then they are matched as RFC 6265 says. The suite runs
/// on each transport.
@Suite(.serialized, .timeLimit(.minutes(3))) struct CookieTests {
    /// An empty storage of its own for one test (FoundationNetworking keeps it in a file named
    /// after `name`, so each test empties it first).
    static func storage(_ name: String) -> HTTPCookieStorage {
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "corenetkit-tests-\(name)")
        for cookie in storage.cookies ?? [] { storage.deleteCookie(cookie) }
        storage.cookieAcceptPolicy = .always
        return storage
    }

    static func setCookies(_ server: TestServer, _ cookies: [String], path: String = "/cookies/set")
        -> ServerRequest
    {
        let query = cookies.map { "cookie=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) }
        return server.get(path + "?" + query.joined(separator: "&"))
    }

    static func sentCookie(_ server: TestServer, _ path: String, _ configuration: NetworkConfiguration)
        async throws -> String?
    {
        try await TestRequest<Echo>(configuration: configuration) { server.get(path) }.performAsync().headers["cookie"]
    }

    @Test func withoutACookieStorageNoCookieIsKeptOrSentOnAnyPort() async throws {
        try await withTestServer { server in
            try await withTestServer { other in
                let configuration = testConfiguration()

                _ = try await TestRequest<JSON>(configuration: configuration) {
                    Self.setCookies(server, ["session=sEcReT-c; Path=/"])
                }.performAsync()

                #expect(try await Self.sentCookie(server, "/echo", configuration) == nil)
                #expect(try await Self.sentCookie(other, "/echo", configuration) == nil)
            }
        }
    }

    @Test func aStoredCookieGoesBackToTheSameHostAndToItsPathOnly() async throws {
        try await withTestServer { server in
            let storage = Self.storage("path")
            let configuration = testConfiguration { $0.cookieStorage = storage }

            _ = try await TestRequest<JSON>(configuration: configuration) {
                Self.setCookies(server, ["session=abc; Path=/", "scoped=xyz; Path=/echo/inner", "other=1"])
            }.performAsync()
            let paths = (storage.cookies ?? []).map { "\($0.name) \($0.path)" }.sorted()
            #expect(paths == ["other /cookies", "scoped /echo/inner", "session /"])  // RFC 6265 default path

            #expect(try await Self.sentCookie(server, "/echo/inner/x", configuration) == "scoped=xyz; session=abc")
            #expect(try await Self.sentCookie(server, "/echo", configuration) == "session=abc")
            #expect(try await Self.sentCookie(server, "/echo/innerx", configuration) == "session=abc")
        }
    }

    /// A login that answers with a redirect and its session cookie (POST, 302 with `Set-Cookie`, GET): the cookie is
    /// stored and the redirected request carries it, with the stored cookies for its path; a redirect to another
    /// host carries only the cookies stored for that host, never the request's own `Cookie` header.
    @Test func aCookieSetByARedirectIsStoredAndSentOnTheRedirectedRequest() async throws {
        try await withTestServer { server in
            try await withTestServer { other in
                let storage = Self.storage("redirect")
                let configuration = testConfiguration { $0.cookieStorage = storage }
                func encoded(_ text: String) -> String {
                    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
                }
                _ = try await TestRequest<JSON>(configuration: configuration) {
                    Self.setCookies(server, ["earlier=1; Path=/echo"])
                }.performAsync()

                let login = "/redirect?status=303&to=/echo/home&cookie=" + encoded("session=s-1; Path=/")
                let landed = try await TestRequest<Echo>(configuration: configuration) {
                    ServerRequest(
                        method: .post, baseUrl: server.baseURL, relativeUrl: login, headers: ["Cookie": "own=o-1"],
                        parameters: .jsonObject(["user": "ann"]))
                }.performAsync()
                let away = "/redirect?to=" + encoded(other.baseURL.absoluteString + "/echo")
                let elsewhere = try await TestRequest<Echo>(configuration: configuration) {
                    server.get(away, headers: ["Cookie": "own=o-2"])
                }.performAsync()

                #expect(landed.method == "GET" && landed.path == "/echo/home")
                #expect(landed.headers["cookie"] == "own=o-1; earlier=1; session=s-1")
                #expect((storage.cookies ?? []).map(\.name).sorted() == ["earlier", "session"])
                // 127.0.0.1 on another port is the same host for cookies (RFC 6265 §8.5), not the same origin.
                #expect(elsewhere.headers["cookie"] == "earlier=1; session=s-1")
            }
        }
    }

    /// The same after an upload sent from a file (on AsyncHTTPClient such a body goes through the transport's
    /// `send(_:)`): the `303` that answers the upload sets the cookie the redirected GET carries.
    @Test func aCookieSetByTheRedirectAfterAFileUploadIsSentOnTheRedirectedRequest() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let storage = Self.storage("upload-redirect")
                let configuration = testConfiguration { $0.cookieStorage = storage }
                let file = try ScratchFile(in: directory, name: "photo.jpg", bytes: 10_000, seed: 4)
                // Written to a file before it is sent, rather than assembled in memory.
                var form = MultipartData(memoryThreshold: 1024)
                form.append(fileAt: file.url, name: "photo")
                let cookie = "uploaded=u-1; Path=/".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""

                let landed = try await TestRequest<Echo>(configuration: configuration) { [form] in
                    server.post("/redirect?status=303&to=/echo/done&cookie=" + cookie, form)
                }.performAsync()

                #expect(landed.method == "GET" && landed.path == "/echo/done")
                #expect(landed.headers["cookie"] == "uploaded=u-1")
            }
        }
    }

    @Test func portsAreNotIsolatedAsRFC6265Says() async throws {
        try await withTestServer { server in
            try await withTestServer { other in
                let configuration = testConfiguration { $0.cookieStorage = Self.storage("ports") }

                _ = try await TestRequest<JSON>(configuration: configuration) {
                    Self.setCookies(server, ["session=abc; Path=/"])
                }.performAsync()

                #expect(try await Self.sentCookie(other, "/echo", configuration) == "session=abc")
            }
        }
    }

    @Test func secureExpiredAndForeignDomainCookiesAreNotSent() async throws {
        try await withTestServer { server in
            let storage = Self.storage("rules")
            let configuration = testConfiguration { $0.cookieStorage = storage }

            _ = try await TestRequest<JSON>(configuration: configuration) {
                Self.setCookies(
                    server,
                    [
                        "plain=1; Path=/", "secure=2; Path=/; Secure", "gone=3; Path=/; Max-Age=0",
                        "old=4; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "foreign=5; Path=/; Domain=example.com",
                    ])
            }.performAsync()

            #expect(try await Self.sentCookie(server, "/echo", configuration) == "plain=1")
            #expect(!(storage.cookies ?? []).contains { $0.name == "foreign" })
        }
    }

    @Test func aCookieExpiresByTheConfigurationsClock() async throws {
        try await withTestServer { server in
            let clock = ManualClock(startDate: Date())  // the storage drops cookies expired by the real date
            let configuration = testConfiguration {
                $0.cookieStorage = Self.storage("clock")
                $0.clock = clock
            }
            _ = try await TestRequest<JSON>(configuration: configuration) {
                Self.setCookies(server, ["short=1; Path=/; Max-Age=60"])
            }.performAsync()
            #expect(try await Self.sentCookie(server, "/echo", configuration) == "short=1")

            clock.advance(by: .seconds(61))

            #expect(try await Self.sentCookie(server, "/echo", configuration) == nil)
        }
    }

    @Test func aRequestsOwnCookieHeaderComesFirstAndCookiesAreMaskedInLogs() async throws {
        try await withTestServer { server in
            let lines = Locked<[String]>([])
            let configuration = testConfiguration {
                $0.cookieStorage = Self.storage("logs")
                $0.logger = PrintNetworkLogger(includesBodies: true, includesCURL: true) { line in
                    lines.withLock { $0.append(line) }
                }
            }
            _ = try await TestRequest<JSON>(configuration: configuration) {
                Self.setCookies(server, ["session=sEcReT-s; Path=/"])
            }.performAsync()

            let echo = try await TestRequest<Echo>(configuration: configuration) {
                server.get("/echo", headers: ["Cookie": "own=1"])
            }.performAsync()

            #expect(echo.headers["cookie"] == "own=1; session=sEcReT-s")
            let text = lines.withLock { $0 }.joined(separator: "\n")
            #expect(!text.contains("sEcReT"), "\(text)")
        }
    }

    @Test func cookiesFoldedIntoOneFieldAreSplitButADateCommaIsNot() {
        let folded = "a=1; Path=/, b=2; Expires=Wed, 21 Oct 2099 07:28:00 GMT, c=3"

        #expect(
            CookieJar.cookieFields(folded) == ["a=1; Path=/", "b=2; Expires=Wed, 21 Oct 2099 07:28:00 GMT", "c=3"])
    }

    @Test func theURLSessionTransportKeepsNoCookiesOfItsOwn() {
        let configuration = URLSessionTransport.defaultConfiguration()
        let transport = URLSessionTransport(configuration: .default)

        #expect(configuration.httpCookieStorage == nil)
        #expect(!configuration.httpShouldSetCookies)
        #expect(configuration.httpCookieAcceptPolicy == .never)
        #expect(transport.session.configuration.httpCookieStorage == nil)
        #expect(!transport.session.configuration.httpShouldSetCookies)
    }
}
