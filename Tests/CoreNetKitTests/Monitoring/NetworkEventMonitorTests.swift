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

/// The events monitors see, in the order ``NetworkEventMonitor`` documents, for the main paths a
/// request can take.
@Suite(.timeLimit(.minutes(3))) struct NetworkEventMonitorTests {
    @Test func successGoesStartPrepareSendReceiveDecodeFinish() async throws {
        try await withTestServer { server in
            let monitor = RecordingMonitor()
            let configuration = testConfiguration { $0.monitors = [monitor] }

            _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()

            #expect(
                try await monitor.events() == [
                    "start GET", "prepare GET", "send 1", "receive 200 #1", "decode User", "finish success attempts 1",
                ])
            let stages = try #require(monitor.metrics.first).stages.map { $0.stage }
            #expect(
                stages == ["ResponseValidationInterceptor", "RetryInterceptor", "PreparatorInterceptor", "transport"])
        }
    }

    @Test func anAttemptTheServerHoldsWasAnnouncedToTheMonitorsBeforeItsAnswer() async throws {
        try await withTestServer { server in
            let monitor = RecordingMonitor()
            let configuration = testConfiguration { $0.monitors = [monitor] }
            let context = TestRequest<HeldReply>(configuration: configuration) {
                server.get("/hold/monitored-in-flight")
            }.perform()
            try await server.waitForArrivals(at: "monitored-in-flight", count: 1, timeout: .seconds(30))
            await drain(monitor.queue)

            // The events are handed over in batches; the one before the transport is not held back.
            #expect(monitor.recorded == ["start GET", "prepare GET", "send 1"])
            server.release("monitored-in-flight")
            _ = try await context.value
            #expect(try await monitor.events().suffix(2) == ["decode HeldReply", "finish success attempts 1"])
        }
    }

    @Test func cacheOnlyAnswerGoesStartCacheHitDecodeFinishWithoutSending() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let monitor = RecordingMonitor()
                var configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                _ = try await server.request("/counter/monitored", .serverOnly).perform(Counter.self, configuration)
                    .log.success()
                configuration.monitors = [monitor]

                _ = try await server.request("/counter/monitored", .cacheOnly).perform(Counter.self, configuration)
                    .log.success()

                #expect(
                    try await monitor.events() == [
                        "start GET", "cache hit", "decode Counter", "finish success from cache attempts 0",
                    ])
            }
        }
    }

    @Test func revalidatedAnswerReportsTheHitThe304AndTheRevalidation() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let monitor = RecordingMonitor()
                var configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                let request = server.request("/cache/etag/monitored", .firstCacheThenRefreshFromServer)
                _ = try await request.perform(Versioned.self, configuration).log.success()
                configuration.monitors = [monitor]

                _ = try await request.perform(Versioned.self, configuration).log.success()

                #expect(
                    try await monitor.events() == [
                        "start GET", "cache hit", "prepare GET", "send 1", "receive 304 #1", "cache revalidated",
                        "decode Versioned", "finish success attempts 1",
                    ])
            }
        }
    }

    @Test func retriedRequestReportsEachAttemptAndTheRetryBetween() async throws {
        try await withTestServer { server in
            let monitor = RecordingMonitor()
            let configuration = testConfiguration {
                $0.monitors = [monitor]
                $0.retryPolicy = RetryPolicy(jitter: { 0 })
                $0.clock = ManualClock()
            }

            _ = try await TestRequest<FlakyReply>(configuration: configuration) {
                server.get("/flaky/monitored?failures=1")
            }.performAsync()

            #expect(
                try await monitor.events() == [
                    "start GET", "prepare GET", "send 1", "receive 503 #1", "retry 2 of 3 after status 503",
                    "prepare GET", "send 2", "receive 200 #2", "decode FlakyReply", "finish success attempts 2",
                ])
        }
    }

    @Test func rejectedTokenReportsTheRefreshBetweenTheTwoAttempts() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            let monitor = RecordingMonitor()
            var configuration = auth.configuration
            configuration.monitors = [monitor]
            server.auth.expireAccessToken()

            _ = try await TestRequest<ProtectedReply>(configuration: configuration) {
                server.get("/protected/monitored")
            }.performAsync()

            #expect(
                try await monitor.events() == [
                    "start GET", "prepare GET", "send 1", "receive 401 #1", "refresh started",
                    "refresh finished true", "prepare GET", "send 2", "receive 200 #2", "decode ProtectedReply",
                    "finish success attempts 2",
                ])
            #expect(monitor.preparedAuthorization.allSatisfy { $0 == LogRedactor.mask })
        }
    }

    @Test func cancelledRequestEndsWithCancelledInsteadOfFinish() async throws {
        try await withTestServer { server in
            let monitor = RecordingMonitor()
            let configuration = testConfiguration {
                $0.monitors = [monitor]
                $0.retryPolicy = RetryPolicy(baseDelay: .seconds(60), jitter: { 1 })
                $0.clock = ManualClock()
            }
            let clock = try #require(configuration.clock as? ManualClock)
            let context = TestRequest<FlakyReply>(configuration: configuration) {
                server.get("/flaky/monitored-cancel?failures=5")
            }.perform()
            try await withTimeout(30, "the back-off") { await clock.waitForSleepers(1) }

            context.cancel()

            #expect(
                try await monitor.events() == [
                    "start GET", "prepare GET", "send 1", "receive 503 #1", "retry 2 of 3 after status 503",
                    "cancelled",
                ])
        }
    }

    @Test func durationsAreReadFromTheConfigurationsClock() async throws {
        let clock = ManualClock()
        let monitor = RecordingMonitor()
        let transport = StubTransport(latency: .seconds(2), clock: clock) { request in
            TransportResponse(statusCode: 200, body: Data(#"{"id":1,"name":"A","email":"a@x"}"#.utf8), url: request.url)
        }
        let configuration = testConfiguration(transport: transport) {
            $0.monitors = [monitor]
            $0.clock = clock
        }
        let task = Task {
            try await TestRequest<User>(configuration: configuration) {
                ServerRequest(method: .get, baseUrl: URL(string: "https://api.example.com")!, relativeUrl: "/users/1")
            }.performAsync()
        }
        try await withTimeout(30, "the stub's latency") { await clock.waitForSleepers(1) }

        clock.advance(by: .seconds(2))
        _ = try await task.value

        _ = try await monitor.events()
        let metrics = try #require(monitor.metrics.first)
        #expect(metrics.totalDuration == .seconds(2))
        #expect(metrics.stages.first { $0.stage == "transport" }?.duration == .seconds(2))
        #expect(metrics.stages.filter { $0.stage != "transport" }.allSatisfy { $0.duration == .zero })
    }

    @Test func aMonitorThatRunsInlineHasEveryEventOfARequestWhenTheRequestReturns() async throws {
        try await withTestServer { server in
            let monitor = RecordingMonitor(runsInline: true, exchangeBodyLimit: 1024)
            let configuration = testConfiguration { $0.monitors = [monitor] }

            _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()

            // No wait: the events ran on the request's own threads before its result came back.
            #expect(
                monitor.recorded == [
                    "start GET", "prepare GET", "send 1", "receive 200 #1", "exchange 200", "decode User",
                    "finish success attempts 1",
                ])
        }
    }

    @Test func aMonitorIsToldOnlyTheGroupsOfEventsItAsksFor() async throws {
        try await withTestServer { server in
            let attempts = RecordingMonitor(events: .attempts)
            let stages = RecordingMonitor(events: .stages)
            let exchanges = RecordingMonitor(events: [], exchangeBodyLimit: 1024)
            let requests = RecordingMonitor(events: .requests)
            let configuration = testConfiguration {
                // The one that waits for the end last: the others have had theirs handed over.
                $0.monitors = [attempts, stages, exchanges, requests]
                $0.retryPolicy = RetryPolicy(jitter: { 0 })
                $0.clock = ManualClock()
            }

            _ = try await TestRequest<FlakyReply>(configuration: configuration) {
                server.get("/flaky/monitored-groups?failures=1")
            }.performAsync()

            #expect(try await requests.events() == ["start GET", "decode FlakyReply", "finish success attempts 2"])
            for monitor in [attempts, stages, exchanges] { await drain(monitor.queue) }
            #expect(
                attempts.recorded == [
                    "prepare GET", "send 1", "receive 503 #1", "prepare GET", "send 2", "receive 200 #2",
                ])
            #expect(stages.recorded == ["retry 2 of 3 after status 503"])
            #expect(exchanges.recorded == ["exchange 503", "exchange 200"])
        }
    }

    @Test func hostMetricsCountARequestWithASecretInItsQueryUnderItsHost() async throws {
        try await withTestServer { server in
            let metrics = HostMetricsMonitor(queue: DispatchQueue(label: "tests.metrics.secret"))
            let configuration = testConfiguration { $0.monitors = [metrics] }

            _ = try await TestRequest<User>(configuration: configuration) {
                server.get("/users/1", parameters: .query(["access_token": .string("sEcReT-value")]))
            }.performAsync()
            await drain(metrics.queue)

            #expect(metrics.snapshot().keys.sorted() == ["127.0.0.1"])
        }
    }

    @Test func hostMetricsCountRequestsAndErrorsPerHost() async throws {
        try await withTestServer { server in
            let metrics = HostMetricsMonitor(queue: DispatchQueue(label: "tests.metrics"))
            let configuration = testConfiguration { $0.monitors = [metrics] }

            for _ in 1...3 {
                _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()
            }
            _ = try? await TestRequest<User>(configuration: configuration) { server.get("/status/500") }.performAsync()
            await drain(metrics.queue)

            let host = try #require(metrics.snapshot()["127.0.0.1"])
            #expect(host.requests == 4)
            #expect(host.errors == 1)
            #expect(host.p50 > .zero)
            #expect(host.p99 >= host.p50)
        }
    }
}

/// Records every event as a short line, on a queue of its own.
/// What `/hold/:gate` answers once its gate is released.
struct HeldReply: Decodable, Sendable {
    let gate: String
}

final class RecordingMonitor: NetworkEventMonitor {
    let queue = DispatchQueue(label: "tests.monitor")
    let events: NetworkMonitorEvents
    let runsInline: Bool
    let exchangeBodyLimit: Int?

    init(events: NetworkMonitorEvents = .all, runsInline: Bool = false, exchangeBodyLimit: Int? = nil) {
        self.events = events
        self.runsInline = runsInline
        self.exchangeBodyLimit = exchangeBodyLimit
    }
    private let lines = Locked<[String]>([])
    private let finished = Once<Void>()
    private let finishedMetrics = Locked<[RequestMetrics]>([])
    private let authorizations = Locked<[String?]>([])

    /// The events of the finished request, once it finished (bounded wait).
    func events() async throws -> [String] {
        try await withTimeout(30, "the last monitor event") { await self.finished.value }
        await drain(queue)
        return lines.withLock { $0 }
    }

    /// The events so far.
    var recorded: [String] { lines.withLock { $0 } }
    var metrics: [RequestMetrics] { finishedMetrics.withLock { $0 } }
    var preparedAuthorization: [String?] { authorizations.withLock { $0 } }

    private func record(_ line: String) { lines.withLock { $0.append(line) } }

    func requestDidStart(_ request: MonitoredRequest) { record("start \(request.method.rawValue)") }

    func request(_ request: MonitoredRequest, didPrepare urlRequest: URLRequest) {
        authorizations.withLock { $0.append(urlRequest.value(forHTTPHeaderField: "Authorization")) }
        record("prepare \(urlRequest.httpMethod ?? "-")")
    }

    func request(_ request: MonitoredRequest, willSendAttempt attempt: Int) { record("send \(attempt)") }

    func request(_ request: MonitoredRequest, didReceive response: MonitoredResponse) {
        record("receive \(response.statusCode) #\(response.attempt)")
    }

    func request(_ request: MonitoredRequest, didFailAttemptWith error: BaseServerError) {
        record("fail \(error.code)")
    }

    func request(_ request: MonitoredRequest, willRetry retry: MonitoredRetry) {
        record("retry \(retry.attempt) of \(retry.maximumAttempts) after \(retry.reason)")
    }

    func request(_ request: MonitoredRequest, didUseCache event: CacheEvent) { record("cache \(event.rawValue)") }

    func request(_ request: MonitoredRequest, tokenRefresh event: TokenRefreshEvent) {
        switch event {
        case .started: record("refresh started")
        case .finished(let succeeded): record("refresh finished \(succeeded)")
        }
    }

    func request(_ request: MonitoredRequest, didDecode decoding: MonitoredDecoding) {
        record("decode \(decoding.modelType)")
    }

    func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics) {
        switch metrics.outcome {
        case .success(let fromCache):
            record("finish success\(fromCache ? " from cache" : "") attempts \(metrics.attempts)")
        case .failure(let error): record("finish failure \(error)")
        }
        finishedMetrics.withLock { $0.append(metrics) }
        finished.fire(())
    }

    func requestWasCancelled(_ request: MonitoredRequest) {
        record("cancelled")
        finished.fire(())
    }

    func request(_ request: MonitoredRequest, didExchange exchange: MonitoredExchange) {
        record("exchange \(exchange.statusCode ?? 0)")
    }
}
