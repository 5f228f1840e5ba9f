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

@Suite(.timeLimit(.minutes(3))) struct NetworkLoggerTests {
    @Test func loggerWritesOneLinePerRequestAndResponseAndNeverAToken() async throws {
        try await withTestServer { server in
            let lines = Locked<[String]>([])
            let logger = PrintNetworkLogger(includesBodies: true, includesCURL: true) { line in
                lines.withLock { $0.append(line) }
            }
            let configuration = testConfiguration { $0.logger = logger }
            let request = TestRequest<JSON>(configuration: configuration) {
                ServerRequest(
                    method: .post, baseUrl: server.baseURL, relativeUrl: "/users",
                    headers: ["Authorization": "Bearer sEcReT-1", "Cookie": "session=sEcReT-2"],
                    parameters: .jsonObject(["refreshToken": "sEcReT-3", "name": "Ada"]))
            }

            _ = try await request.performAsync()

            let all = lines.withLock { $0 }
            let text = all.joined(separator: "\n")
            #expect(!text.contains("sEcReT"))
            #expect(all.contains { $0.hasPrefix("→ POST \(server.baseURL.absoluteString)/users") })
            #expect(all.contains { $0.hasPrefix("← 201 POST \(server.baseURL.absoluteString)/users") })
            #expect(all.contains { $0.hasPrefix("curl -X POST") && $0.contains("'Authorization: <redacted>'") })
            #expect(text.contains("\"name\":\"Ada\""))
        }
    }

    @Test func tokenLikeQueryItemsAreRedacted() {
        let url = URL(string: "http://h/p?access_token=abc&api_key=k1&page=2&token=t&userToken=u")!

        let redacted = LogRedactor.redact(url: url)

        #expect(
            redacted
                == "http://h/p?access_token=<redacted>&api_key=<redacted>&page=2&token=<redacted>&userToken=<redacted>")
        #expect(!redacted.contains("abc") && !redacted.contains("k1"))
    }

    @Test func failuresAreLoggedWithTheirReason() async throws {
        let lines = Locked<[String]>([])
        let configuration = testConfiguration(transport: StubTransport.failing(with: URLError(.timedOut))) {
            $0.logger = PrintNetworkLogger { line in lines.withLock { $0.append(line) } }
        }
        let request = TestRequest<JSON>(configuration: configuration) {
            ServerRequest(method: .get, baseUrl: URL(string: "http://stub.invalid")!, relativeUrl: "/x?token=zzz")
        }

        _ = await request.perform().result

        let all = lines.withLock { $0 }
        #expect(all.count == 2)
        #expect(all.last?.hasPrefix("✕ GET http://stub.invalid/x?token=") == true)
        #expect(all.last?.contains("did not respond in time") == true)
        #expect(!all.joined().contains("zzz"))
    }
}
