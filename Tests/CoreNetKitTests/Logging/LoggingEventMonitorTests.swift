//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Logging
import CoreNetKitTestServer
import Dispatch
import Foundation
import InMemoryLogging
import Logging
import Testing

@testable import CoreNetKit

/// What ``LoggingEventMonitor`` writes through swift-log, read back from swift-log's own
/// in-memory handler.
@Suite(.timeLimit(.minutes(3))) struct LoggingEventMonitorTests {
    @Test func successfulRequestLogsRequestResponseAndFinishAtDebug() async throws {
        try await withTestServer { server in
            let log = MonitorLog()
            let configuration = testConfiguration { $0.monitors = [log.monitor] }

            _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()

            let entries = await log.entries()
            #expect(
                entries.map { "\($0.level) \($0.message)" } == [
                    "debug http request", "debug http response", "debug http request finished",
                ])
            let response = entries[1].metadata
            #expect(response["http.request.method"] == "GET")
            #expect(response["url.full"] == .string(server.baseURL.absoluteString + "/users/1"))
            #expect(response["http.response.status_code"] == "200")
            #expect(Int(response["http.response.body.size"]?.description ?? "") ?? 0 > 0)
            #expect(response["corenetkit.attempt"] == "1")
            #expect(response["corenetkit.duration_ms"] != nil)
            #expect(Set(entries.map { $0.metadata["corenetkit.request_id"]?.description ?? "-" }).count == 1)
        }
    }

    @Test func retryIsAWarningAndTheFinalFailureAnError() async throws {
        try await withTestServer { server in
            let log = MonitorLog()
            let configuration = testConfiguration {
                $0.monitors = [log.monitor]
                $0.retryPolicy = RetryPolicy(maximumAttempts: 2, jitter: { 0 })
                $0.clock = ManualClock()
            }

            _ = try? await TestRequest<FlakyReply>(configuration: configuration) {
                server.get("/flaky/logged?failures=5")
            }.performAsync()

            let entries = await log.entries()
            #expect(
                entries.map { "\($0.level) \($0.message)" } == [
                    "debug http request", "debug http response", "warning http retry", "debug http request",
                    "debug http response", "error http request failed",
                ])
            #expect(entries[2].metadata["corenetkit.retry_reason"] == "status 503")
            #expect(entries[2].metadata["corenetkit.attempt"] == "2")
            let failure = entries[5].metadata
            #expect(failure["corenetkit.error"] == "server")
            #expect(failure["http.response.status_code"] == "503")
            #expect(failure["corenetkit.attempts"] == "2")
        }
    }

    @Test func secretsInTheURLAndHeadersNeverReachTheMetadata() async throws {
        try await withTestServer { server in
            let log = MonitorLog()
            let configuration = testConfiguration { $0.monitors = [log.monitor] }

            _ = try await TestRequest<Echo>(configuration: configuration) {
                server.get(
                    "/echo?access_token=s3cr3t-query&page=2", headers: ["Authorization": "Bearer s3cr3t-header"])
            }.performAsync()

            let entries = await log.entries()
            let text = entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
            #expect(!text.contains("s3cr3t"))
            #expect(entries.first?.metadata["url.full"]?.description.contains("access_token=<redacted>&page=2") == true)
        }
    }

    @Test func cancelledRequestEndsWithACancelledEntry() async throws {
        try await withTestServer { server in
            let log = MonitorLog()
            let configuration = testConfiguration { $0.monitors = [log.monitor] }
            let context = TestRequest<User>(configuration: configuration) { server.get("/hold/logged-cancel") }
                .perform()
            try await server.waitForArrivals(at: "logged-cancel", count: 1)

            context.cancel()

            try await withTimeout(30, "the cancelled entry") {
                while await log.entries().last?.message != "http request cancelled" { await Task.yield() }
            }
            let lines = await log.entries().map { "\($0.level) \($0.message)" }
            #expect(lines.first == "debug http request")
            #expect(lines.last == "debug http request cancelled")
            #expect(lines.allSatisfy { $0.hasPrefix("debug") })  // a cancellation is no failure
        }
    }

    @Test func levelsFollowTheLoggersThreshold() async throws {
        try await withTestServer { server in
            let log = MonitorLog(level: .info)
            let configuration = testConfiguration { $0.monitors = [log.monitor] }

            _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()
            _ = try? await TestRequest<User>(configuration: configuration) { server.get("/status/404") }.performAsync()

            #expect(await log.entries().map { "\($0.level) \($0.message)" } == ["error http request failed"])
        }
    }
}

/// A ``LoggingEventMonitor`` on a queue of its own, writing to an in-memory handler.
struct MonitorLog {
    let handler = InMemoryLogHandler()
    let monitor: LoggingEventMonitor

    init(level: Logger.Level = .debug) {
        var logger = Logger(label: "tests.network") { [handler] _ in handler }
        logger.logLevel = level
        monitor = LoggingEventMonitor(logger: logger, queue: DispatchQueue(label: "tests.logging"))
    }

    /// The entries written so far, once the monitor's queue ran every event handed to it.
    func entries() async -> [InMemoryLogHandler.Entry] {
        await drain(monitor.queue)
        return handler.entries
    }
}
#endif
