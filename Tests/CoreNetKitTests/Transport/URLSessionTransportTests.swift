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

@Suite(.timeLimit(.minutes(3))) struct URLSessionTransportTests {
    @Test func serverSlowerThanTheTimeoutEndsInTimeout() async throws {
        let error = try await errorOfAServerSlowerThanHalfASecondTimeout()

        #expect(error.code == .timeout)
    }

    @Test func aSubSecondTimeoutEndsAtTheLibrarysDeadlineNotAtOnce() async throws {
        // URLSession on Linux truncates `timeoutInterval` to whole seconds: 0.5 s used to end
        // the request within milliseconds, with Foundation's own timeout, before the server answered.
        let error = try await errorOfAServerSlowerThanHalfASecondTimeout()

        #expect(error.code == .timeout)
        #expect(error.message == "no complete response within the request's timeout of 0.5 s")
    }

    /// The error of a GET with a timeout of 0.5 s that the server answers after 3 s.
    private func errorOfAServerSlowerThanHalfASecondTimeout() async throws -> BaseServerError {
        try await withTestServer { server in
            let request = TestRequest<JSON>(configuration: testConfiguration()) {
                server.get("/delay/3000", timeout: 0.5)
            }
            return try await #require(throws: BaseServerError.self) { try await request.performAsync() }
        }
    }

    @Test(arguments: [(0.5, 2.0), (1.0, 2.0), (1.5, 3.0), (30.0, 31.0), (.infinity, 604_800.0), (0.0, 604_800.0)])
    func theSessionsOwnTimeoutNeverCutsTheDeadlineShort(timeout: Double, onLinux: Double) {
        let request = TransportRequest(method: .get, url: URL(string: "http://127.0.0.1/")!, timeout: timeout)
        #if canImport(FoundationNetworking)
        #expect(request.urlRequest.timeoutInterval == onLinux)
        #else
        #expect(request.urlRequest.timeoutInterval == (timeout.isFinite && timeout > 0 ? timeout : 604_800))
        #endif
    }

    @Test func aCollectedBodyArrivesWholeWithItsHead() async throws {
        // The server sends the head at once and the body 300 ms later: the head waited for the
        // body's bytes, which were all in and ended when it was handed over, so reading the body
        // never suspends.
        try await withFaultServer { faults in
            var request = TransportRequest(method: .get, url: faults.url(.lateBody))
            request.bodyIsCollected = true

            let response = try await URLSessionTransport().send(request)

            guard case .exchange(let owner) = response.body.storage else {
                Issue.record("the body is not the exchange's buffer")
                return
            }
            let length = try #require(response.headers["Content-Length"].flatMap { Int($0) })
            #expect(length > 0)
            #expect(owner.driver.buffered.bytes == length)
            #expect(owner.driver.buffered.ended)
            let body = try await response.body.collect(upTo: 1 << 20)
            #expect(try JSONDecoder().decode(FaultModel.self, from: body).id == 1)
        }
    }

    @Test func aBodyWithAContentEncodingIsReadToTheEnd() async throws {
        // libcurl inflates a gzip body, so its Content-Length does not count the bytes that
        // arrive: the body must end with the task, not at that length.
        try await withFaultServer { faults in
            var request = TransportRequest(method: .get, url: faults.url(.gzipZeros))
            request.bodyIsCollected = true

            let response = try await URLSessionTransport().send(request)
            let body = try await response.body.collect(upTo: 1 << 24)

            let length = try #require(response.headers["Content-Length"].flatMap { Int($0) })
            #expect(length < 1_000)
            #expect(body == Data(count: 64 << 10))
        }
    }

    @Test func closedPortEndsInCannotConnect() async throws {
        // Port 1 on loopback: nothing listens there (a stopped server's port could be handed to
        // another test's server in the meantime).
        let baseURL = URL(string: "http://127.0.0.1:1")!
        let request = TestRequest<JSON>(configuration: testConfiguration()) {
            ServerRequest(method: .get, baseUrl: baseURL, relativeUrl: "/users")
        }

        let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

        #expect(error.code == .cannotConnect)
        #expect(error.errorDescription?.hasPrefix("Could not connect to the server.") == true)
    }

    @Test func cancellingTheAwaitingTaskCancelsTheRequestOnTheWire() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let task = Task {
                try await TestRequest<JSON>(configuration: configuration) { server.get("/hold/task-cancel") }
                    .performAsync()
            }
            try await server.waitForArrivals(at: "task-cancel", count: 1)

            task.cancel()
            let result = await task.result

            guard case .failure(let error) = result else {
                Issue.record("expected cancellation")
                return
            }
            #expect((error as? BaseServerError)?.code == .cancelled)
            #expect(configuration.taskPool.isEmpty)
            server.release("task-cancel")
        }
    }

    @Test func sameOriginRedirectIsFollowedWithTheAuthorizationHeader() async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(configuration: testConfiguration()) {
                server.get(
                    "/redirect", parameters: .query(["to": "/echo/after"]),
                    headers: ["Authorization": "Bearer secret-1"])
            }

            let echo = try await request.performAsync()

            #expect(echo.path == "/echo/after")
            #expect(echo.headers["authorization"] == "Bearer secret-1")
        }
    }

    @Test func crossOriginRedirectDropsTheAuthorizationHeader() async throws {
        try await withTestServer { other in
            try await withTestServer { server in
                let target = other.baseURL.absoluteString + "/echo/elsewhere"
                let request = TestRequest<Echo>(configuration: testConfiguration()) {
                    server.get(
                        "/redirect", parameters: .query(["to": .string(target)]),
                        headers: ["Authorization": "Bearer secret-1", "X-Kept": "yes"])
                }

                let echo = try await request.performAsync()

                #expect(echo.path == "/echo/elsewhere")
                #expect(echo.headers["authorization"] == nil)
                #expect(echo.headers["x-kept"] == "yes")
            }
        }
    }

    @Test func redirectPolicyComparesSchemeHostAndPort() {
        let a = URL(string: "http://127.0.0.1:8080/a")!

        #expect(RedirectPolicy.isSameOrigin(a, URL(string: "http://127.0.0.1:8080/b")!))
        #expect(!RedirectPolicy.isSameOrigin(a, URL(string: "http://127.0.0.1:8081/a")!))
        #expect(!RedirectPolicy.isSameOrigin(a, URL(string: "https://127.0.0.1:8080/a")!))
        #expect(!RedirectPolicy.isSameOrigin(a, URL(string: "http://localhost:8080/a")!))
        #expect(RedirectPolicy.isSameOrigin(URL(string: "http://h/a")!, URL(string: "http://h:80/b")!))
    }
}

@Suite(.timeLimit(.minutes(3))) struct StubTransportTests {
    @Test func stubAnswersWithCannedBodyAndStatus() async throws {
        let configuration = testConfiguration(
            transport: StubTransport.json(#"{"items": [{"id": 7, "name": "N", "email": "e"}]}"#))
        let request = TestRequest<[User]>(configuration: configuration, keyPath: "items") {
            ServerRequest(method: .get, baseUrl: URL(string: "http://stub.invalid")!, relativeUrl: "/users")
        }

        let users = try await request.performAsync()

        #expect(users == [User(id: 7, name: "N", email: "e")])
    }

    @Test func stubErrorsAreMappedLikeRealOnes() async throws {
        let configuration = testConfiguration(transport: StubTransport.failing(with: URLError(.notConnectedToInternet)))
        let request = TestRequest<JSON>(configuration: configuration) {
            ServerRequest(method: .get, baseUrl: URL(string: "http://stub.invalid")!)
        }

        let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

        #expect(error.code == .noInternetConnection)
    }

    @Test func simulatedLatencyIsCancellableWithoutBlockingAThread() async throws {
        let configuration = testConfiguration(transport: StubTransport.json("{}", latency: .seconds(600)))
        let context = TestRequest<JSON>(configuration: configuration) {
            ServerRequest(method: .get, baseUrl: URL(string: "http://stub.invalid")!)
        }.perform()
        let log = EventLog(context)

        context.cancel()

        guard case .cancel = try await log.waitForTerminal() else {
            Issue.record("expected cancel")
            return
        }
        #expect(configuration.taskPool.isEmpty)
    }
}
