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

/// Where a stage runs relative to the standard ones, that the settings stay the one source of
/// truth for the standard stages, and that a user's stage reaches what the standard ones use.
@Suite(.timeLimit(.minutes(3))) struct InterceptorPlacementTests {
    @Test func stageInsertedBeforeOrAfterANamedStandardStageRunsThere() {
        var configuration = NetworkConfiguration()

        configuration.interceptors.insert(NamedStage(name: "before-cache"), before: CacheInterceptor.self)
        configuration.interceptors.insert(NamedStage(name: "after-retry"), after: RetryInterceptor.self)

        #expect(
            stageNames(configuration) == [
                "ResponseValidationInterceptor", "RetryInterceptor", "after-retry", "PreparatorInterceptor",
                "before-cache", "CacheInterceptor", "AccessTokenInterceptor",
            ])
    }

    @Test func removedStandardStagesGoBackInTheirPlacesAndCopiesAreDropped() {
        var configuration = NetworkConfiguration()

        configuration.interceptors.removeAll { $0 is RetryInterceptor || $0 is CacheInterceptor }
        configuration.interceptors.append(NamedStage(name: "mine"))
        let restored = stageNames(configuration)
        configuration.interceptors = [NamedStage(name: "only")]
        let replaced = stageNames(configuration)
        configuration.interceptors += NetworkConfiguration.standardInterceptors
        let doubled = stageNames(configuration)

        let standard = NetworkConfiguration.standardInterceptors.map { String(describing: type(of: $0)) }
        #expect(restored == standard + ["mine"])
        #expect(replaced == standard + ["only"])
        #expect(doubled == standard + ["only"])
    }

    @Test func insertBeforeAStageTheListLacksAppendsAndSaysSo() {
        var stages: [any Interceptor] = []

        let found = stages.insert(NamedStage(name: "late"), before: NamedStage.self)

        #expect(!found)
        #expect(stages.count == NetworkConfiguration.standardInterceptors.count + 1)
        #expect((stages.last as? NamedStage)?.name == "late")
    }

    @Test func retryPolicyRetriesEvenWhenTheRetryStageWasTakenOut() async throws {
        try await withTestServer { server in
            let fixture = RetryFixture(
                policy: RetryPolicy(baseDelay: .seconds(1), jitter: { 1 }),
                base: testConfiguration { $0.interceptors = [] })
            let task = Task { try await fixture.get(server, "/flaky/placement?failures=1") }

            try await fixture.advanceAfterEachWait([.seconds(1)])

            #expect(try await task.value.attempt == 2)
            #expect(server.hits(path: "/flaky/placement") == 2)
        }
    }

    /// The chain passes over a standard stage with nothing to do, but decides on the request as
    /// it reaches that stage: here a stage before the retry stage gives it a policy.
    @Test func stageBeforeTheRetryStageCanGiveTheRequestARetryPolicy() async throws {
        try await withTestServer { server in
            let clock = ManualClock()
            let configuration = testConfiguration {
                $0.clock = clock
                $0.interceptors.insert(
                    RetryPolicyStage(policy: RetryPolicy(baseDelay: .seconds(1), jitter: { 1 })),
                    before: RetryInterceptor.self)
            }
            #expect(configuration.retryPolicy == nil)
            let task = Task {
                try await TestRequest<FlakyReply>(configuration: configuration) {
                    ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: "/flaky/pass-over?failures=1")
                }.performAsync()
            }

            try await withTimeout(30, "the retry's wait") { await clock.waitForSleepers(1) }
            clock.advance(by: .seconds(1))

            #expect(try await task.value.attempt == 2)
            #expect(server.hits(path: "/flaky/pass-over") == 2)
        }
    }

    /// Without a cache adapter the cache stage has nothing to do, except refuse `cacheOnly`: the
    /// chain must not pass over it then, nor send the request.
    @Test func cacheOnlyWithoutACacheAdapterFailsWithoutSending() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            #expect(configuration.cacheAdapter == nil)

            await #expect {
                _ = try await TestRequest<JSON>(configuration: configuration) {
                    ServerRequest(
                        method: .get, baseUrl: server.baseURL, relativeUrl: "/users/1", cachePolicy: .cacheOnly)
                }.performAsync()
            } throws: { error in
                (error as? BaseServerError)?.code == .cacheMiss
            }
            #expect(server.hits(path: "/users/1") == 0)
        }
    }

    @Test func stageBeforeTheCacheRunsOnACacheHitAndTheStageAfterItDoesNot() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let runs = Locked<[String]>([])
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: wallClock())
                    .with {
                        $0.interceptors.insert(CountingStage(name: "before", runs: runs), before: CacheInterceptor.self)
                        $0.interceptors.insert(CountingStage(name: "after", runs: runs), after: CacheInterceptor.self)
                    }
                let request = server.request("/cache/fresh/placement?cc=max-age%3D100", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()

                let (context, log) = request.perform(Counter.self, configuration)
                _ = try await log.success()

                #expect(context.isFromCache)
                #expect(runs.withLock { $0 } == ["before", "after", "before"])
                #expect(server.hits("GET", "/cache/fresh/placement") == 1)
            }
        }
    }

    @Test func userStageReachesTheMonitorsAndTellsThemTheURLItChanged() async throws {
        try await withTestServer { server in
            let monitor = StageNoteMonitor()
            let configuration = testConfiguration {
                $0.monitors = [monitor]
                $0.interceptors.append(VersioningStage())
            }

            _ = try await TestRequest<Echo>(configuration: configuration) { server.get("/echo/versioned") }
                .performAsync()

            // The stage's own event already reports the URL it changed: the monitors were told.
            let lines = try await monitor.lines()
            #expect(lines.count == 2)
            #expect(lines.first?.hasPrefix("versioned ") == true)
            #expect(lines.allSatisfy { $0.hasSuffix("/echo/versioned?v=2") })
        }
    }
}

private func stageNames(_ configuration: NetworkConfiguration) -> [String] {
    configuration.interceptors.map { ($0 as? NamedStage)?.name ?? String(describing: type(of: $0)) }
}

extension NetworkConfiguration {
    fileprivate func with(_ change: (inout NetworkConfiguration) -> Void) -> NetworkConfiguration {
        var copy = self
        change(&copy)
        return copy
    }
}

private struct NamedStage: Interceptor {
    let name: String

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        try await next.proceed(request)
    }
}

private struct CountingStage: Interceptor {
    let name: String
    let runs: Locked<[String]>

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        runs.withLock { $0.append(name) }
        return try await next.proceed(request)
    }
}

/// Adds `v=2` to the query, says so to the monitors through the chain, then goes on.
private struct VersioningStage: Interceptor {
    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        try next.checkCancellation()
        var versioned = request
        versioned.relativeUrl += "?v=2"
        next.updateMonitoredRequest(versioned)
        if next.isMonitored {
            next.emit { monitor, request in (monitor as? StageNoteMonitor)?.note("versioned \(request.url)") }
        }
        return try await next.proceed(versioned)
    }
}

/// Records a user stage's own notes and the URL each received response is reported for.
private final class StageNoteMonitor: NetworkEventMonitor {
    let queue = DispatchQueue(label: "tests.placement-monitor")
    private let recorded = Locked<[String]>([])
    private let finished = Once<Void>()

    func note(_ line: String) { recorded.withLock { $0.append(line) } }

    func lines() async throws -> [String] {
        try await withTimeout(30, "the last monitor event") { await self.finished.value }
        await drain(queue)
        return recorded.withLock { $0 }
    }

    func request(_ request: MonitoredRequest, didReceive response: MonitoredResponse) {
        note(request.url)
    }

    func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics) { finished.fire(()) }
}

/// Gives every request a retry policy of its own.
private struct RetryPolicyStage: Interceptor {
    let policy: RetryPolicy

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        var request = request
        request.retryPolicy = policy
        return try await next.proceed(request)
    }
}
