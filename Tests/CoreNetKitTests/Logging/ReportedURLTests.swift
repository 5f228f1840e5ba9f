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

#if Logging
import Logging
#endif

#if Tracing
import InMemoryTracing
import Tracing
#endif

/// Every report of a request's URL — log entries, the cURL line, monitors, errors — shows the URL
/// that was sent: the base URL's path, the relative URL's query, the `.query` parameters and the
/// preparators' query items, secrets redacted. The suite runs on each transport.
@Suite(.timeLimit(.minutes(3))) struct ReportedURLTests {
    /// A request with a base that has a path, a relative URL with a query, `.query` parameters
    /// (one of them a secret) and a preparator that adds a query item.
    static func configuredRequest(_ server: TestServer, _ configuration: NetworkConfiguration) -> TestRequest<Echo> {
        let base = server.baseURL.appendingPathComponent("v1")
        return TestRequest<Echo>(configuration: configuration) {
            ServerRequest(
                method: .get, baseUrl: base, relativeUrl: "/echo?page=2",
                parameters: .query(["size": 10, "access_token": "sEcReT-q"]))
        }
    }

    static func preparing(_ configuration: inout NetworkConfiguration) {
        configuration.preparators = [
            DefaultHeadersPreparator(),
            ClosurePreparator { request in
                var request = request
                if case .query(var items) = request.parameters {
                    items["api_version"] = "2"
                    request.parameters = .query(items)
                }
                return request
            },
        ]
    }

    /// What every report must say.
    static func expectedURL(_ server: TestServer) -> String {
        server.baseURL.absoluteString + "/v1/echo?page=2&access_token=<redacted>&api_version=2&size=10"
    }

    @Test func logEntriesAndTheCURLLineShowTheURLThatWasSent() async throws {
        try await withTestServer { server in
            let entries = Locked<[NetworkLogEntry]>([])
            let configuration = testConfiguration {
                $0.logger = EntryLogger { entry in entries.withLock { $0.append(entry) } }
                Self.preparing(&$0)
            }

            let echo = try await Self.configuredRequest(server, configuration).performAsync()

            #expect(echo.path == "/v1/echo")
            #expect(echo.rawQuery == "page=2&access_token=sEcReT-q&api_version=2&size=10")
            let logged = entries.withLock { $0 }
            #expect(logged.map(\.kind) == [.request, .response])
            for entry in logged { #expect(entry.url == Self.expectedURL(server), "\(entry.kind)") }
            #expect(logged.first?.curl?.hasSuffix("'\(Self.expectedURL(server))'") == true, "\(logged)")
        }
    }

    @Test func monitorsSeeTheURLThatWasSentInEveryEventFromThePreparedRequestOn() async throws {
        try await withTestServer { server in
            let monitor = URLRecordingMonitor()
            let configuration = testConfiguration {
                $0.monitors = [monitor]
                Self.preparing(&$0)
            }

            _ = try await Self.configuredRequest(server, configuration).performAsync()

            let seen = try await monitor.urls()
            let expected = Self.expectedURL(server)
            // The prepared URLRequest's URL is a Foundation URL: `<redacted>` is percent-encoded there.
            #expect(seen.prepared.map { $0.removingPercentEncoding } == [expected])
            #expect(seen.events.count == 6, "\(seen.events)")
            // The start is reported before the preparators ran: base, relative URL and `.query`.
            let beforePreparing = server.baseURL.absoluteString + "/v1/echo?page=2&access_token=<redacted>&size=10"
            #expect(seen.events.first == "start \(beforePreparing)")
            for event in seen.events.dropFirst() { #expect(event.hasSuffix(" \(expected)"), "\(event)") }
            #expect(seen.hosts == ["127.0.0.1"])
        }
    }

    @Test func aQueryInTheRelativeURLAndQueryParametersOfAPostAreBothReported() async throws {
        try await withTestServer { server in
            let entries = Locked<[NetworkLogEntry]>([])
            let monitor = URLRecordingMonitor()
            let configuration = testConfiguration {
                $0.logger = EntryLogger { entry in entries.withLock { $0.append(entry) } }
                $0.monitors = [monitor]
                $0.preparators = [CommonQueryPreparator(["api_version": "2"])]
            }
            let base = server.baseURL.appendingPathComponent("v1")

            let echo = try await TestRequest<Echo>(configuration: configuration) {
                ServerRequest(
                    method: .post, baseUrl: base, relativeUrl: "echo?token=sEcReT-t",
                    parameters: .jsonObject(["name": "Ada"]))
            }.performAsync()

            let expected = server.baseURL.absoluteString + "/v1/echo?token=<redacted>&api_version=2"
            #expect(echo.rawQuery == "token=sEcReT-t&api_version=2")
            #expect(entries.withLock { $0 }.map(\.url) == [expected, expected])
            #expect(try await monitor.urls().events.last == "finish \(expected)")
        }
    }

    @Test func aRequestThatCannotBeBuiltNamesItsURLRedacted() async throws {
        let monitor = URLRecordingMonitor()
        let configuration = testConfiguration { $0.monitors = [monitor] }
        let request = TestRequest<JSON>(configuration: configuration) {
            ServerRequest(
                method: .get, baseUrl: URL(string: "http://127.0.0.1:9/v1")!,
                relativeUrl: "https://evil.example/x?token=sEcReT-e",
                parameters: .query(["access_token": "sEcReT-e"]))
        }

        let result = await request.perform().result

        let error = try #require(result.failure as? BaseServerError)
        #expect(error.code == .invalidRequest)
        #expect(!(error.errorDescription ?? "").contains("sEcReT"), "\(error)")
        #expect(!(try await monitor.urls().events.joined().contains("sEcReT")))
    }
}

#if Logging
extension ReportedURLTests {
    @Test func swiftLogURLFullIsTheURLThatWasSent() async throws {
        try await withTestServer { server in
            let log = MonitorLog()
            let configuration = testConfiguration {
                $0.monitors = [log.monitor]
                Self.preparing(&$0)
            }

            _ = try await Self.configuredRequest(server, configuration).performAsync()

            let entries = await log.entries()
            #expect(entries.count == 3)
            for entry in entries {
                #expect(entry.metadata["url.full"] == .string(Self.expectedURL(server)), "\(entry.message)")
            }
        }
    }
}
#endif

#if Tracing
extension ReportedURLTests {
    @Test func spanURLFullIsTheURLThatWasSent() async throws {
        try await withTestServer { server in
            let tracer = W3CTestTracer()
            let configuration = testConfiguration {
                $0.addTracing(tracer: tracer)
                Self.preparing(&$0)
            }

            _ = try await Self.configuredRequest(server, configuration).performAsync()

            let spans = tracer.finishedSpans
            let span = try #require(spans.count == 1 ? spans.first : nil)
            #expect(span.attributes.get("url.full") == .string(Self.expectedURL(server)))
            #expect(span.attributes.get("server.address") == .string("127.0.0.1"))
        }
    }
}
#endif

/// A logger that hands every entry to a closure.
struct EntryLogger: NetworkLogger {
    let includesBodies: Bool
    let record: @Sendable (NetworkLogEntry) -> Void

    init(includesBodies: Bool = false, _ record: @escaping @Sendable (NetworkLogEntry) -> Void) {
        self.includesBodies = includesBodies
        self.record = record
    }

    func log(_ entry: NetworkLogEntry) { record(entry) }
}

/// Records the URL each monitor event names.
final class URLRecordingMonitor: NetworkEventMonitor {
    let queue = DispatchQueue(label: "tests.url-monitor")
    private let state = Locked<(events: [String], prepared: [String], hosts: Set<String>)>(([], [], []))
    private let finished = Once<Void>()

    func urls() async throws -> (events: [String], prepared: [String], hosts: Set<String>) {
        try await withTimeout(30, "the last monitor event") { await self.finished.value }
        await drain(queue)
        return state.withLock { $0 }
    }

    private func record(_ name: String, _ request: MonitoredRequest) {
        state.withLock { state in
            state.events.append("\(name) \(request.url)")
            state.hosts.insert(request.host)
        }
    }

    func requestDidStart(_ request: MonitoredRequest) { record("start", request) }
    func request(_ request: MonitoredRequest, didPrepare urlRequest: URLRequest) {
        record("prepare", request)
        state.withLock { $0.prepared.append(urlRequest.url?.absoluteString ?? "-") }
    }
    func request(_ request: MonitoredRequest, willSendAttempt attempt: Int) { record("send", request) }
    func request(_ request: MonitoredRequest, didReceive response: MonitoredResponse) { record("receive", request) }
    func request(_ request: MonitoredRequest, didFailAttemptWith error: BaseServerError) { record("fail", request) }
    func request(_ request: MonitoredRequest, didDecode decoding: MonitoredDecoding) { record("decode", request) }
    func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics) {
        record("finish", request)
        finished.fire(())
    }
    func requestWasCancelled(_ request: MonitoredRequest) {
        record("cancelled", request)
        finished.fire(())
    }
}
