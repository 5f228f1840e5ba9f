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

/// The retry stage against the loopback server, on a manual clock: nothing here waits for real
/// time to pass.
@Suite(.timeLimit(.minutes(3))) struct RetryTests {
    @Test func twoFailuresThenSuccessTakesThreeAttemptsWithExponentialDelays() async throws {
        try await withTestServer { server in
            let fixture = RetryFixture(policy: RetryPolicy(baseDelay: .seconds(1), jitter: { 1 }))
            let task = Task { try await fixture.get(server, "/flaky/twice?failures=2") }

            try await fixture.advanceAfterEachWait([.seconds(1), .seconds(2)])

            let reply = try await task.value
            #expect(reply.attempt == 3)
            #expect(fixture.log.retries.map { $0.delay } == [.seconds(1), .seconds(2)])
            #expect(fixture.log.retries.map { $0.attempt } == [2, 3])
            #expect(server.hits(path: "/flaky/twice") == 3)
        }
    }

    @Test func retryAfterInSecondsWinsOverTheComputedDelay() async throws {
        try await withTestServer { server in
            let fixture = RetryFixture(policy: RetryPolicy(baseDelay: .milliseconds(10), jitter: { 1 }))
            let task = Task { try await fixture.get(server, "/flaky/after-seconds?failures=1&retryAfter=2") }

            try await fixture.advanceAfterEachWait([.seconds(2)])

            #expect(try await task.value.attempt == 2)
            #expect(fixture.log.retries.map { $0.delay } == [.seconds(2)])
        }
    }

    @Test func retryAfterAsAnHTTPDateIsMeasuredFromTheClocksNow() async throws {
        try await withTestServer { server in
            let fixture = RetryFixture(policy: RetryPolicy(baseDelay: .milliseconds(10), jitter: { 1 }))
            let date = HTTPDate.format(fixture.clock.currentDate.addingTimeInterval(5))
            let query = "failures=1&retryAfter=" + date.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let task = Task { try await fixture.get(server, "/flaky/after-date?" + query) }

            try await fixture.advanceAfterEachWait([.seconds(5)])

            #expect(try await task.value.attempt == 2)
            #expect(fixture.log.retries.map { $0.delay } == [.seconds(5)])
        }
    }

    @Test func retryAfterLongerThanTheMaximumIsCutToIt() async throws {
        try await withTestServer { server in
            let policy = RetryPolicy(maximumRetryAfter: .seconds(10), jitter: { 1 })
            let fixture = RetryFixture(policy: policy)
            let task = Task { try await fixture.get(server, "/flaky/after-long?failures=1&retryAfter=3600") }

            try await fixture.advanceAfterEachWait([.seconds(10)])

            #expect(try await task.value.attempt == 2)
        }
    }

    @Test func a429StormRetriesOnlyWhileTheSharedBudgetLasts() async throws {
        try await withTestServer { server in
            let budget = RetryBudget(maximumTokens: 6, tokenRatio: 0.1)
            let fixture = RetryFixture(policy: RetryPolicy(budget: budget, jitter: { 0 }))

            for index in 1...10 {
                let error = await #expect(throws: BaseServerError.self) {
                    try await fixture.get(server, "/flaky/storm-\(index)?failures=100&status=429")
                }
                #expect(error?.statusCode == 429)
            }

            let attempts = (1...10).map { server.hits(path: "/flaky/storm-\($0)") }
            // 6 tokens: the first request fails 3 times (6 → 3); after that no retry is allowed
            // while 3 or fewer are left: 12 attempts in all instead of 30.
            #expect(attempts == [3, 1, 1, 1, 1, 1, 1, 1, 1, 1])
            #expect(budget.available == 0)
        }
    }

    @Test func postIsNotRetriedWithoutAnOptIn() async throws {
        try await withTestServer { server in
            let fixture = RetryFixture(policy: RetryPolicy(jitter: { 0 }))

            let error = await #expect(throws: BaseServerError.self) {
                try await fixture.send(server, .post, "/flaky/post-plain?failures=1")
            }

            #expect(error?.statusCode == 503)
            #expect(server.hits(path: "/flaky/post-plain") == 1)
        }
    }

    @Test func postWithAnIdempotencyKeyOrAnOptInIsRetried() async throws {
        try await withTestServer { server in
            let fixture = RetryFixture(policy: RetryPolicy(jitter: { 0 }))
            let optedIn = RetryFixture(policy: RetryPolicy(retriesNonIdempotentRequests: true, jitter: { 0 }))

            let keyed = try await fixture.send(
                server, .post, "/flaky/post-keyed?failures=1", headers: ["Idempotency-Key": "order-1"])
            let opted = try await optedIn.send(server, .post, "/flaky/post-opted?failures=1")

            #expect(keyed.attempt == 2)
            #expect(opted.attempt == 2)
        }
    }

    @Test func requestPolicyNeverOverridesTheConfigurationsPolicy() async throws {
        try await withTestServer { server in
            let fixture = RetryFixture(policy: RetryPolicy(jitter: { 0 }))

            let error = await #expect(throws: BaseServerError.self) {
                try await fixture.send(server, .get, "/flaky/never?failures=1", retryPolicy: .never)
            }

            #expect(error?.statusCode == 503)
            #expect(server.hits(path: "/flaky/never") == 1)
        }
    }

    @Test func cancellingTheContextDuringTheBackoffEndsItWithNoEventAndAnEmptyPool() async throws {
        try await withTestServer { server in
            let fixture = RetryFixture(policy: RetryPolicy(baseDelay: .seconds(60), jitter: { 1 }))
            let context = TestRequest<FlakyReply>(configuration: fixture.configuration) {
                server.get("/flaky/cancel-context?failures=5")
            }.perform()
            let log = EventLog(context)
            try await withTimeout(30, "the back-off") { await fixture.clock.waitForSleepers(1) }

            context.cancel()

            guard case .cancel = try await log.waitForTerminal() else {
                Issue.record("expected cancellation, got \(log.names)")
                return
            }
            try await withTimeout(30, "the back-off to end") { await fixture.waitUntilNoSleepers() }
            await drain(fixture.configuration.callbackQueue)
            #expect(log.names == ["cancel"])
            #expect(fixture.configuration.taskPool.isEmpty)
            #expect(server.hits(path: "/flaky/cancel-context") == 1)
        }
    }

    @Test func cancellingTheTaskDuringTheBackoffThrowsCancelled() async throws {
        try await withTestServer { server in
            let fixture = RetryFixture(policy: RetryPolicy(baseDelay: .seconds(60), jitter: { 1 }))
            let task = Task { try await fixture.get(server, "/flaky/cancel-task?failures=5") }
            try await withTimeout(30, "the back-off") { await fixture.clock.waitForSleepers(1) }

            task.cancel()

            let error = await #expect(throws: BaseServerError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(fixture.configuration.taskPool.isEmpty)
            #expect(server.hits(path: "/flaky/cancel-task") == 1)
        }
    }

    @Test func connectionFailuresAreRetriedUpToTheLimit() async throws {
        let baseURL = URL(string: "http://127.0.0.1:1")!  // nothing listens on port 1
        let fixture = RetryFixture(policy: RetryPolicy(maximumAttempts: 3, jitter: { 0 }))

        let error = await #expect(throws: BaseServerError.self) {
            try await TestRequest<FlakyReply>(configuration: fixture.configuration) {
                ServerRequest(method: .get, baseUrl: baseURL, relativeUrl: "/flaky/gone")
            }.performAsync()
        }

        #expect(error?.code == .cannotConnect)
        #expect(fixture.log.sent == 3)
    }

    @Test func aRetryAfterA401RefreshIsRefreshedOnceAndThenRetried() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            let fixture = RetryFixture(policy: RetryPolicy(jitter: { 0 }), base: auth.configuration)
            server.auth.expireAccessToken()

            let reply = try await fixture.get(server, "/flaky/after-refresh?failures=1&auth=1")

            #expect(reply.attempt == 2)
            #expect(server.auth.refreshCalls == 1)
            #expect(fixture.log.statuses == [401, 503, 200])
        }
    }

    @Test func aStreamedMultipartUploadIsSentAgainByteForByte() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let file = try ScratchFile(in: directory, name: "retry.bin", bytes: 300_000, seed: 11)
                var form = MultipartData(memoryThreshold: 1024, temporaryDirectory: directory)
                form.append("retried", name: "title")
                form.append(fileAt: file.url, name: "file")
                let policy = RetryPolicy(retriesNonIdempotentRequests: true, jitter: { 0 })
                let fixture = RetryFixture(policy: policy)

                let report = try await TestRequest<UploadReport>(configuration: fixture.configuration) { [form] in
                    server.post("/flaky/upload-once?failures=1&kind=upload", form)
                }.performAsync()

                #expect(server.hits(path: "/flaky/upload-once") == 2)
                #expect(report.parts.map { $0.name } == ["title", "file"])
                #expect(report.parts[1].size == file.size && report.parts[1].sha256 == file.sha256)
                #expect(contents(of: directory) == ["retry.bin"])
            }
        }
    }
}

struct FlakyReply: Decodable, Sendable {
    let key: String
    let attempt: Int
}

/// A configuration with a retry policy, a manual clock and a logger that records attempts.
struct RetryFixture {
    let clock = ManualClock()
    let log = AttemptLog()
    let configuration: NetworkConfiguration

    init(policy: RetryPolicy, base: NetworkConfiguration = testConfiguration()) {
        var configuration = base
        configuration.retryPolicy = policy
        configuration.clock = clock
        configuration.logger = log
        self.configuration = configuration
    }

    func get(_ server: TestServer, _ path: String) async throws -> FlakyReply {
        try await send(server, .get, path)
    }

    func send(
        _ server: TestServer, _ method: HTTPMethod, _ path: String, headers: [String: String] = [:],
        retryPolicy: RetryPolicy? = nil
    ) async throws -> FlakyReply {
        try await TestRequest<FlakyReply>(configuration: configuration) {
            ServerRequest(
                method: method, baseUrl: server.baseURL, relativeUrl: path, headers: headers,
                retryPolicy: retryPolicy)
        }.performAsync()
    }

    /// For each delay: waits until the request sleeps, checks it asked for that delay, and
    /// advances the clock by it.
    func advanceAfterEachWait(_ delays: [Duration]) async throws {
        for (index, delay) in delays.enumerated() {
            try await withTimeout(30, "wait \(index + 1)") { await clock.waitForSleepers(1) }
            #expect(log.retries.count == index + 1)
            clock.advance(by: delay)
        }
    }

    /// Returns once nothing sleeps on the clock any more.
    func waitUntilNoSleepers() async {
        while clock.sleeperCount > 0 { await Task.yield() }
    }
}

/// Records what the pipeline logged: requests sent, statuses, and retries with their delays.
final class AttemptLog: NetworkLogger {
    private let entries = Locked<[NetworkLogEntry]>([])

    func log(_ entry: NetworkLogEntry) { entries.withLock { $0.append(entry) } }

    var sent: Int { entries.withLock { $0.filter { $0.kind == .request }.count } }
    var statuses: [Int] { entries.withLock { $0.compactMap { $0.kind == .response ? $0.statusCode : nil } } }
    struct Retry: Sendable {
        let attempt: Int
        let delay: Duration
    }

    var retries: [Retry] {
        let all = entries.withLock { $0 }
        var found: [Retry] = []
        for entry in all where entry.kind == .retry {
            guard let attempt = entry.attempt, let delay = entry.duration else { continue }
            found.append(Retry(attempt: attempt, delay: delay))
        }
        return found
    }
}
