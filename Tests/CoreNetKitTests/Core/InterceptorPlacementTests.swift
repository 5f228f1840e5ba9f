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

/// Where a stage runs relative to the built-in ones, that each setting is its built-in stage, that
/// a built-in stage can be removed, replaced or moved through public API, and that a user's stage
/// reaches what the built-in ones use.
@Suite(.timeLimit(.minutes(3))) struct InterceptorPlacementTests {
    @Test func stageInsertedBeforeOrAfterANamedBuiltInStageRunsThere() {
        var configuration = NetworkConfiguration()
        configuration.cacheAdapter = UrlCacheAdapter(memoryCapacity: 1 << 20, diskCapacity: 0)

        configuration.interceptors.insert(NamedStage(name: "before-cache"), before: CacheInterceptor.self)
        configuration.interceptors.insert(NamedStage(name: "after-retry"), after: RetryInterceptor.self)

        #expect(
            stageNames(configuration) == [
                "ResponseValidationInterceptor", "RetryInterceptor", "after-retry", "PreparatorInterceptor",
                "before-cache", "CacheInterceptor",
            ])
    }

    @Test func eachSettingIsItsStageAndAFeatureThatIsOffHasNone() {
        var configuration = NetworkConfiguration()
        let initial = stageNames(configuration)

        configuration.cacheAdapter = UrlCacheAdapter(memoryCapacity: 1 << 20, diskCapacity: 0)
        configuration.interceptors.append(NamedStage(name: "mine"))
        let withCache = stageNames(configuration)
        configuration.interceptors.removeAll { $0 is RetryInterceptor || $0 is CacheInterceptor }
        let removed = (configuration.retryPolicy, configuration.cacheAdapter)
        configuration.retryPolicy = RetryPolicy()
        configuration.preparators = []
        configuration.validators = []

        #expect(initial == ["ResponseValidationInterceptor", "RetryInterceptor", "PreparatorInterceptor"])
        #expect(
            withCache == [
                "ResponseValidationInterceptor", "RetryInterceptor", "PreparatorInterceptor", "CacheInterceptor",
                "mine",
            ])
        #expect(removed.0 == nil && removed.1 == nil)
        // The retry stage went back to its standard place; the empty settings took theirs out.
        #expect(stageNames(configuration) == ["RetryInterceptor", "mine"])
        #expect(configuration.retryPolicy?.maximumAttempts == RetryPolicy().maximumAttempts)
    }

    @Test func insertBeforeAStageTheListLacksAppendsAndSaysSo() {
        var stages: [any Interceptor] = [NamedStage(name: "first")]

        let found = stages.insert(NamedStage(name: "late"), before: NamedStage.Other.self)

        #expect(!found)
        #expect(stages.map { ($0 as? NamedStage)?.name } == ["first", "late"])
    }

    /// A stage of the test target takes the built-in retry stage's place: the configuration's
    /// policy (three attempts) no longer applies, the stage's own rule (one more try) does.
    @Test func aStageOfYoursReplacesTheBuiltInRetryStage() async throws {
        try await withTestServer { server in
            var configuration = testConfiguration { $0.retryPolicy = RetryPolicy(maximumAttempts: 3) }
            let index = try #require(configuration.interceptors.firstIndex(ofStage: RetryInterceptor.self))
            configuration.interceptors[index] = OneMoreTryStage()

            let error = await #expect(throws: BaseServerError.self) {
                _ = try await TestRequest<FlakyReply>(configuration: configuration) {
                    ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: "/flaky/replaced?failures=2")
                }.performAsync()
            }

            #expect(error?.statusCode == 503)
            #expect(server.hits(path: "/flaky/replaced") == 2)
            #expect(configuration.retryPolicy == nil)
        }
    }

    /// Taking the cache stage out of the list turns the cache off: nothing is stored, and a
    /// `cacheOnly` request fails with `cacheMiss` without being sent.
    @Test func removingTheCacheStageTurnsTheCacheOff() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                var configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                configuration.interceptors.removeAll { $0 is CacheInterceptor }
                _ = try await server.request("/counter/removed", .serverOnly).perform(Counter.self, configuration).log
                    .success()

                let error = try await server.request("/counter/removed", .cacheOnly).perform(
                    Counter.self, configuration
                ).log.failure()

                #expect((error as? BaseServerError)?.code == .cacheMiss)
                #expect(configuration.cacheAdapter == nil)
                #expect(server.hits("GET", "/counter/removed") == 1)
            }
        }
    }

    /// A stage placed before the token stage sees the request without the token; one appended
    /// sees it with the token, as the server does.
    @Test func aStagePlacedBeforeTheTokenStageSeesTheRequestWithoutTheToken() async throws {
        try await withTestServer { server in
            let seen = Locked<[String: String?]>([:])
            let auth = AuthFixture(server: server)
            var configuration = auth.configuration
            configuration.interceptors.insert(
                AuthorizationNote(name: "before", seen: seen), before: AccessTokenInterceptor.self)
            configuration.interceptors.append(AuthorizationNote(name: "after", seen: seen))

            let echo = try await TestRequest<Echo>(configuration: configuration) { server.get("/echo/token") }
                .performAsync()

            let headers = seen.withLock { $0 }
            #expect(headers["before"] == .some(nil))
            #expect(headers["after"] == .some("Bearer token-1"))
            #expect(echo.headers["authorization"] == "Bearer token-1")
        }
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
    /// A stage type no list in these tests holds.
    struct Other: Interceptor {
        func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
            try await next.proceed(request)
        }
    }

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

/// Tries once more when the first answer is a `503`: a retry stage of the test target's, through
/// public API only.
private struct OneMoreTryStage: Interceptor {
    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        let response = try await next.proceed(request)
        guard response.statusCode == 503 else { return response }
        return try await next.proceed(request)
    }
}

/// Records the `Authorization` header the request has when it reaches the stage.
private struct AuthorizationNote: Interceptor {
    let name: String
    let seen: Locked<[String: String?]>

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        let header = request.headers.first { $0.key.lowercased() == "authorization" }?.value
        seen.withLock { $0[name] = .some(header) }
        return try await next.proceed(request)
    }
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
