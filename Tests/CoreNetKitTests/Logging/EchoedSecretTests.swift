//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Dispatch
import Foundation
import Testing

@testable import CoreNetKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server that echoes every value it received — in a JSON, form, multipart or text body and in
/// `X-Echo-<Name>` response headers — never gets a secret the client sent into a log entry, its
/// headers, its body or a monitor's event. Every secret below starts with `sEcReT`. The suite
/// runs on each transport.
@Suite(.timeLimit(.minutes(3))) struct EchoedSecretTests {
    static func requests(_ base: URL, answer: String) -> [ServerRequest] {
        var form = MultipartData()
        form.append("sEcReT-m1", name: "password")
        form.append("sEcReT-m2", name: "access_token")
        form.append("Ada", name: "name")
        let path = "/secrets/echo?as=\(answer)"
        return [
            ServerRequest(
                method: .get, baseUrl: base, relativeUrl: path,
                headers: [
                    "Authorization": "Bearer sEcReT-h1", "X-Api-Key": "sEcReT-h2", "Cookie": "session=sEcReT-c1",
                ],
                parameters: .query(["access_token": "sEcReT-q1", "page": "2"])),
            ServerRequest(
                method: .post, baseUrl: base, relativeUrl: path, headers: ["Authorization": "Basic sEcReT-h3"],
                parameters: .jsonObject(["password": "sEcReT-j1", "access_token": "sEcReT-j2", "name": "Ada"])),
            ServerRequest(
                method: .post, baseUrl: base, relativeUrl: path,
                parameters: .formURLEncoded(["password": "sEcReT-f1", "access_token": "sEcReT-f2", "name": "Ada"])),
            ServerRequest(method: .post, baseUrl: base, relativeUrl: path, parameters: .multipart(form)),
        ]
    }

    @Test(arguments: ["json", "form", "multipart", "text"])
    func secretsEchoedInAnyEncodingOrHeaderNeverReachALogOrAMonitor(answer: String) async throws {
        try await withTestServer { server in
            let lines = Locked<[String]>([])
            let entries = Locked<[NetworkLogEntry]>([])
            let printer = PrintNetworkLogger(includesBodies: true, includesCURL: true) { line in
                lines.withLock { $0.append(line) }
            }
            let monitor = HeaderRecordingMonitor()
            let configuration = testConfiguration {
                $0.logger = EntryLogger(includesBodies: true) { entry in
                    entries.withLock { $0.append(entry) }
                    printer.log(entry)
                }
                $0.monitors = [monitor]
            }

            for serverRequest in Self.requests(server.baseURL, answer: answer) {
                let result = await TestRequest<Data>(configuration: configuration) { serverRequest }.perform().result
                #expect(result.failure == nil, "\(result)")
            }

            let text = lines.withLock { $0 }.joined(separator: "\n")
            #expect(!text.contains("sEcReT"), "\(text)")
            let headers = entries.withLock { $0 }.flatMap(\.headers)
            #expect(!headers.contains { $0.value.contains("sEcReT") }, "\(headers)")
            var echoed: [String] = []
            for field in headers where field.name.caseInsensitiveCompare("X-Echo-Authorization") == .orderedSame {
                echoed.append(field.value)
            }
            #expect(echoed == [LogRedactor.mask, LogRedactor.mask], "\(headers.map(\.name))")
            #expect(text.contains("Ada"), "\(text)")
            let prepared = try await monitor.headerValues()
            #expect(!prepared.contains { $0.contains("sEcReT") }, "\(prepared)")
        }
    }

    @Test func aMultipartResponseShowsItsPartsWithSecretFieldsMasked() {
        let body = Data(
            ("--b7\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter22\r\n"
                + "--b7\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda\r\n"
                + "--b7\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.png\"\r\n"
                + "Content-Type: image/png\r\n\r\n\u{89}PNG\r\n--b7--\r\n").utf8)

        let logged = LogRedactor.redact(body: body, contentType: "multipart/form-data; boundary=b7", secrets: [])

        #expect(!logged.contains("hunter22"), "\(logged)")
        #expect(logged.contains("password") && logged.contains(LogRedactor.mask) && logged.contains("Ada"), "\(logged)")
        #expect(!logged.contains("PNG"), "\(logged)")
    }

    @Test func aHeaderIsMaskedByItsNameByACredentialSchemeOrByCarryingASentSecret() {
        let headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer abc"), ("X-Forwarded-Auth", "Bearer xyz"), ("X-Echo", "token is tok-1234"),
            ("Accept", "application/json"), ("WWW-Authenticate", "Basic realm=\"x\""),
        ]

        let redacted = LogRedactor.redact(headers: headers, secrets: ["tok-1234"])

        #expect(
            redacted.map(\.value) == [
                LogRedactor.mask, LogRedactor.mask, LogRedactor.mask, "application/json", "Basic realm=\"x\"",
            ])
    }
}

/// Records every header value and URL monitors are shown in the prepared request.
final class HeaderRecordingMonitor: NetworkEventMonitor {
    let queue = DispatchQueue(label: "tests.header-monitor")
    private let values = Locked<[String]>([])

    func headerValues() async throws -> [String] {
        await drain(queue)
        return values.withLock { $0 }
    }

    func request(_ request: MonitoredRequest, didPrepare urlRequest: URLRequest) {
        let seen = Array((urlRequest.allHTTPHeaderFields ?? [:]).values) + [urlRequest.url?.absoluteString ?? ""]
        values.withLock { $0 += seen + [request.url] }
    }
}
