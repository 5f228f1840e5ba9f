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

@Suite(.timeLimit(.minutes(3))) struct RequestEncodingTests {
    @Test func reservedCharactersSpacesAndEmojiInQueryValuesRoundTripThroughTheServer() async throws {
        try await withTestServer { server in
            let values = ["a&b", "c=d", "e+f", "g?h", "i/j", "k l", "emoji 🙂🚀", "100%"]
            let request = TestRequest<Echo>(configuration: testConfiguration()) {
                server.get("/echo", parameters: .query(["v": .array(values.map(QueryValue.string)), "plain": "x"]))
            }

            let echo = try await request.performAsync()

            #expect(echo.query == [["plain", "x"]] + values.map { ["v", $0] })
        }
    }

    @Test func postSendsJSONBodyWithContentType() async throws {
        struct NewUser: Codable, Sendable {
            let name: String
            let email: String
        }
        try await withTestServer { server in
            let request = TestRequest<Echo>(configuration: testConfiguration()) {
                ServerRequest(
                    method: .post, baseUrl: server.baseURL, relativeUrl: "/echo",
                    parameters: .json(NewUser(name: "Ada", email: "ada@example.com")))
            }

            let echo = try await request.performAsync()

            #expect(echo.method == "POST")
            #expect(echo.headers["content-type"] == "application/json; charset=utf-8")
            let sent = try JSONDecoder().decode([String: String].self, from: Data((echo.body ?? "").utf8))
            #expect(sent == ["name": "Ada", "email": "ada@example.com"])
        }
    }

    @Test func getFlattensAJSONObjectIntoTheQuery() async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(configuration: testConfiguration()) {
                server.get("/echo", parameters: .jsonObject(["b": 2, "a": "x y", "list": [1, 2]]))
            }

            let echo = try await request.performAsync()

            #expect(echo.query == [["a", "x y"], ["b", "2"], ["list", "1"], ["list", "2"]])
            #expect(echo.bodyLength == 0)
        }
    }

    @Test func formParametersAreSentURLEncodedInThePostBody() async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(configuration: testConfiguration()) {
                ServerRequest(
                    method: .put, baseUrl: server.baseURL, relativeUrl: "/echo/form",
                    parameters: .formURLEncoded(["name": "Ada L", "tag": ["x&y", "z"]]))
            }

            let echo = try await request.performAsync()

            #expect(echo.method == "PUT")
            #expect(echo.headers["content-type"] == "application/x-www-form-urlencoded; charset=utf-8")
            #expect(echo.body == "name=Ada%20L&tag=x%26y&tag=z")
        }
    }

    @Test func defaultPreparatorSetsAcceptAndUserAgentButKeepsTheRequestsOwnHeaders() async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(configuration: testConfiguration()) {
                server.get("/echo", headers: ["Accept": "application/vnd.api+json", "X-Trace": "t-1"])
            }

            let echo = try await request.performAsync()

            #expect(echo.headers["user-agent"] == "CoreNetKit/\(CoreNetKitVersion.current)")
            #expect(echo.headers["accept"] == "application/vnd.api+json")
            #expect(echo.headers["x-trace"] == "t-1")
        }
    }

    @Test func preparatorsRunInRegistrationOrder() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration { configuration in
                configuration.preparators = [
                    ClosurePreparator { request in
                        var r = request
                        r.headers["X-Order"] = "first"
                        return r
                    },
                    ClosurePreparator { request in
                        var r = request
                        r.headers["X-Order", default: ""] += ",second"
                        return r
                    },
                    CommonQueryPreparator(["api_version": "2"]),
                ]
            }
            let request = TestRequest<Echo>(configuration: configuration) {
                server.get("/echo", parameters: .query(["q": "1"]))
            }

            let echo = try await request.performAsync()

            #expect(echo.headers["x-order"] == "first,second")
            #expect(echo.query == [["api_version", "2"], ["q", "1"]])
        }
    }

    @Test func headerValueWithLineBreakIsRejectedBeforeSending() async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(configuration: testConfiguration()) {
                server.get("/echo", headers: ["X-Evil": "a\r\nInjected: yes"])
            }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .invalidRequest)
            #expect(server.hits(path: "/echo") == 0)
        }
    }
}
