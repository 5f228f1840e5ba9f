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

/// Users' interceptors in the chain: what they see, what they may change, in which order they
/// run, and how cancellation reaches them.
@Suite(.timeLimit(.minutes(3))) struct InterceptorChainTests {
    @Test func userInterceptorAddsAHeaderTheServerReceives() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration {
                $0.interceptors.append(HeaderInterceptor(name: "X-Signed", value: "yes"))
            }

            let echo = try await TestRequest<Echo>(configuration: configuration) { server.get("/echo/signed") }
                .performAsync()

            #expect(echo.headers["x-signed"] == "yes")
        }
    }

    @Test func userInterceptorThatShortCircuitsAnswersWithoutReachingTheServer() async throws {
        try await withTestServer { server in
            let canned = CannedInterceptor(body: #"{"id": 7, "name": "Canned", "email": "c@example.com"}"#)
            let configuration = testConfiguration { $0.interceptors.append(canned) }

            let user = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }
                .performAsync()

            #expect(user == User(id: 7, name: "Canned", email: "c@example.com"))
            #expect(server.hits("GET", "/users/1") == 0)
        }
    }

    @Test func aStageRunsTheRestOfTheChainFromItsOwnTaskAfterTheRequestEnded() async throws {
        try await withTestServer { server in
            let forked = Once<String?>()
            let configuration = testConfiguration {
                $0.interceptors.append(ForkingInterceptor(path: "/echo/forked", result: forked))
                $0.interceptors.append(HeaderInterceptor(name: "X-After-Fork", value: "seen"))
            }

            let user = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }
                .performAsync()
            let forkedHeader = try await withTimeout { await forked.value }

            #expect(user.id == 1)
            // The fork went through the stage after the forking one, to the server.
            #expect(forkedHeader == "seen")
        }
    }

    @Test func interceptorsRunInListOrderInwardAndInReverseOutward() async throws {
        try await withTestServer { server in
            let trace = Locked<[String]>([])
            let configuration = testConfiguration {
                $0.interceptors.append(TracingInterceptor(name: "a", trace: trace))
                $0.interceptors.append(TracingInterceptor(name: "b", trace: trace))
            }

            let echo = try await TestRequest<Echo>(configuration: configuration) { server.get("/echo/order") }
                .performAsync()

            #expect(trace.withLock { $0 } == ["a in", "b in", "b out 200", "a out 200"])
            #expect(echo.headers["x-trace"] == "a,b")
        }
    }

    @Test func standardStagesRunBeforeAnAppendedInterceptorSoItSeesThePreparedRequest() async throws {
        try await withTestServer { server in
            let seen = Locked<[String: String]>([:])
            let configuration = testConfiguration {
                $0.preparators = [DefaultHeadersPreparator(extraHeaders: ["X-App": "demo"])]
                $0.interceptors.append(InspectingInterceptor(seen: seen))
            }

            _ = try await TestRequest<Echo>(configuration: configuration) { server.get("/echo/prepared") }
                .performAsync()

            #expect(seen.withLock { $0["X-App"] } == "demo")
        }
    }

    @Test func requestCancelledInsideAnInterceptorEndsWithNoEventAndAnEmptyPool() async throws {
        try await withTestServer { server in
            let clock = ManualClock()
            let entered = Once<Void>()
            let left = Once<String>()
            let configuration = testConfiguration {
                $0.interceptors.append(WaitingInterceptor(clock: clock, entered: entered, left: left))
            }
            let context = TestRequest<User>(configuration: configuration) { server.get("/users/1") }.perform()
            let log = EventLog(context)
            try await withTimeout(30, "the interceptor to start waiting") { await entered.value }

            context.cancel()

            guard case .cancel = try await log.waitForTerminal() else {
                Issue.record("expected cancellation, got \(log.names)")
                return
            }
            #expect(try await withTimeout(30, "the interceptor to leave") { await left.value } == "cancelled")
            await drain(configuration.callbackQueue)
            #expect(log.names == ["cancel"])
            #expect(configuration.taskPool.isEmpty)
            #expect(server.hits("GET", "/users/1") == 0)
        }
    }

    @Test func performAsyncCancelledInsideAnInterceptorThrowsCancelledAndEmptiesThePool() async throws {
        try await withTestServer { server in
            let clock = ManualClock()
            let entered = Once<Void>()
            let left = Once<String>()
            let configuration = testConfiguration {
                $0.interceptors.append(WaitingInterceptor(clock: clock, entered: entered, left: left))
            }
            let task = Task {
                try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()
            }
            try await withTimeout(30, "the interceptor to start waiting") { await entered.value }

            task.cancel()

            let error = await #expect(throws: BaseServerError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(configuration.taskPool.isEmpty)
        }
    }
}

private struct HeaderInterceptor: Interceptor {
    let name: String
    let value: String

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        var request = request
        request.headers[name] = value
        return try await next.proceed(request)
    }
}

private struct CannedInterceptor: Interceptor {
    let body: String

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        ServerResponse(
            statusCode: 200, headers: ["Content-Type": "application/json"], data: Data(body.utf8), for: request)
    }
}

private struct TracingInterceptor: Interceptor {
    let name: String
    let trace: Locked<[String]>

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        trace.withLock { $0.append("\(name) in") }
        var request = request
        request.headers["X-Trace"] = request.headers["X-Trace"].map { "\($0),\(name)" } ?? name
        let response = try await next.proceed(request)
        trace.withLock { $0.append("\(name) out \(response.statusCode)") }
        return response
    }
}

private struct InspectingInterceptor: Interceptor {
    let seen: Locked<[String: String]>

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        seen.withLock { $0 = request.headers }
        return try await next.proceed(request)
    }
}

private struct WaitingInterceptor: Interceptor {
    let clock: ManualClock
    let entered: Once<Void>
    let left: Once<String>

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        entered.fire(())
        do {
            try await clock.pause(for: .seconds(3600))  // ends only when the request is cancelled
        } catch {
            left.fire("cancelled")
            throw error
        }
        left.fire("woke")
        return try await next.proceed(request)
    }
}

/// Sends a second request for `path` through the rest of the chain, in a Task of its own that
/// outlives the request, and reports the `X-After-Fork` header the server echoed (`nil` if it failed).
private struct ForkingInterceptor: Interceptor {
    let path: String
    let result: Once<String?>

    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        let fork = next
        var other = request
        other.relativeUrl = path
        let result = result
        Task {
            let response = try? await fork.proceed(other)
            let echo = response.flatMap { try? JSONDecoder().decode(Echo.self, from: $0.data) }
            result.fire(echo?.headers["x-after-fork"])
        }
        return try await next.proceed(request)
    }
}
