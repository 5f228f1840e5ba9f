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

@Suite(.timeLimit(.minutes(3))) struct SecretRedactionTests {
    /// Every secret below starts with `sEcReT`; none may reach a logger.
    static func requests(_ base: URL) -> [ServerRequest] {
        var form = MultipartData()
        form.append("sEcReT-mp-1", name: "password")
        form.append("sEcReT-mp-2", name: "access_token")
        form.append("Ada", name: "name")
        return [
            ServerRequest(
                method: .get, baseUrl: base, relativeUrl: "/echo",
                headers: ["Authorization": "Bearer sEcReT-h1", "X-Api-Key": "sEcReT-h2", "Client-Secret": "sEcReT-h3"],
                parameters: .query(["access_token": "sEcReT-q1", "api_key": "sEcReT-q2", "page": "2"])),
            ServerRequest(
                method: .post, baseUrl: base, relativeUrl: "/echo",
                parameters: .jsonObject(["password": "sEcReT-j1", "nested": ["client_secret": "sEcReT-j2"]])),
            ServerRequest(
                method: .post, baseUrl: base, relativeUrl: "/echo",
                parameters: .formURLEncoded([
                    "password": "sEcReT-f1", "access_token": "sEcReT-f2", "refresh_token": "sEcReT-f3",
                    "client_secret": "sEcReT-f4", "user[password]": "sEcReT-f5", "username": "ada",
                ])),
            ServerRequest(method: .post, baseUrl: base, relativeUrl: "/upload", parameters: .multipart(form)),
        ]
    }

    @Test(arguments: [false, true])
    func secretsInEveryEncodingNeverReachTheLogger(bodies: Bool) async throws {
        try await withTestServer { server in
            let lines = Locked<[String]>([])
            let logger = PrintNetworkLogger(includesBodies: bodies, includesCURL: true) { line in
                lines.withLock { $0.append(line) }
            }
            let configuration = testConfiguration { $0.logger = logger }

            for serverRequest in Self.requests(server.baseURL) {
                _ = await TestRequest<JSON>(configuration: configuration) { serverRequest }.perform().result
            }

            let text = lines.withLock { $0 }.joined(separator: "\n")
            #expect(!text.contains("sEcReT"), "\(text)")
            #expect(text.contains("curl -X POST"))
            #expect(text.contains("username=ada"))
            #expect(text.contains("password=<redacted>"))
        }
    }

    /// The pre-test that lets a body with no secret-like name skip parsing, against the plain
    /// definition: the body, ASCII letters lowercased, holds one of the words, `%` or `\u`.
    @Test func aBodyMayNameASecretExactlyWhenItHoldsOneOfTheWords() {
        let words = ["token", "key", "password", "secret", "sig", "authorization", "cookie", "%", "\\u"]
        let pieces =
            words + ["to", "ke", "pass", "se", "si", "au", "co", "T", "K", "P", "S", "A", "C", "\\", "x", "é", "\""]
        // Every three pieces in a row, in lower case and, every other time, upper case.
        // Every other one after up to 17 bytes and before 16 more: the words at every place of a
        // block of sixteen, and across two.
        for (index, triple) in pieces.flatMap({ a in pieces.flatMap { b in pieces.map { [a, b, $0] } } }).enumerated() {
            let padded =
                index % 4 < 2 ? triple : [String(repeating: "x", count: index % 18)] + triple + ["_xxxxxxxxxxxxxxx"]
            let text = index % 2 == 0 ? padded.joined() : padded.joined().uppercased()
            let lowered = String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
            let expected = words.contains { lowered.contains($0) }
            if LogRedactor.mayNameSecret(Data(text.utf8)) != expected {
                Issue.record("\(text): expected \(expected)")
                return
            }
        }
    }

    @Test func formBodyFieldsWithSecretNamesAreRedacted() {
        let body = Data("username=ada&password=p%40ss&access_token=abc&user%5Bpassword%5D=x&page=2".utf8)

        let redacted = LogRedactor.redact(body: body)

        #expect(
            redacted
                == "username=ada&password=<redacted>&access_token=<redacted>&user%5Bpassword%5D=<redacted>&page=2")
    }

    @Test func plainTextThatIsNotAFormIsLoggedAsIs() {
        #expect(LogRedactor.redact(body: Data("hello world".utf8)) == "hello world")
    }

    @Test func aJSONBodyKeepsItsMembersOrderSpacingAndEscapesWithSecretValuesMasked() {
        let body =
            #"{"z": 1, "password" : "p\u00e4ss", "a":{"token":[1,{"key":2}]},"list":[{"secret":{"token":"in"}}],"#
            + #""url":"https:\/\/x","pass\u0077ord":true,"n":-0.5e+3}"#
        let redacted = LogRedactor.redact(body: Data(body.utf8))
        #expect(
            redacted
                == #"{"z": 1, "password" : "<redacted>", "a":{"token":"<redacted>"},"list":[{"secret":"<redacted>"}],"#
                + #""url":"https:\/\/x","pass\u0077ord":"<redacted>","n":-0.5e+3}"#)
        // Two redactions of one body read the same (a dictionary's order differed between them).
        #expect(LogRedactor.redact(body: Data(body.utf8)) == redacted)
    }

    @Test(arguments: [
        #"{"a":1,"password":"x"}"#, #"[{"token":"t"},{"x":[1,2,{"api_key":null}]}]"#, #""just text""#, "42", "-0",
        #"{"a":{"b":{"c":{"client_secret":{"d":1}}}},"e":[]}"#, " \n{ \"sig\" : 1e5 }\t",
    ])
    func aRedactedJSONBodyReadsAsTheParsedBodyRedacted(_ body: String) throws {
        let redacted = try #require(LogRedactor.redactJSON(Data(body.utf8)))
        #expect(try JSON(data: Data(redacted.utf8)) == LogRedactor.redact(json: try JSON(data: Data(body.utf8))))
    }

    @Test(arguments: [
        #"{"a":}"#, #"{"a":1,}"#, "[1 2]", #""abc"#, "01", #"{"a":1}x"#, "{\"a\":\"\u{1}\"}", #"{"a":"\x"}"#,
        #"{"a":"\u12G4"}"#, "1.", "-", "tru", #"{"password" "x"}"#, "", String(repeating: "[", count: 600),
    ])
    func textThatIsNotJSONIsNotRedactedAsJSON(_ body: String) {
        #expect(LogRedactor.redactJSON(Data(body.utf8)) == nil)
    }
}
