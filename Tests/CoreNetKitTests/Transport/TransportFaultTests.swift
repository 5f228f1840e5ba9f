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

@Suite(.timeLimit(.minutes(3))) struct TransportUploadProgressTests {
    @Test func inMemoryBodyReportsSeveralMonotonicProgressValuesEndingAtTheTotal() async throws {
        try await withTestServer { server in
            let body = Data(repeating: 0x61, count: 9 * 1024 * 1024)
            var urlRequest = URLRequest(url: server.baseURL.appendingPathComponent("upload/raw"))
            urlRequest.httpMethod = "POST"
            urlRequest.httpBody = body
            urlRequest.timeoutInterval = 30
            let values = Locked<[Int64]>([])
            var request = TransportRequest(urlRequest: urlRequest)
            request.body.observer = UploadObserver { sent, total in
                values.withLock { $0.append(total == Int64(body.count) ? sent : -1) }
            }

            let sent = request
            let response = try await withTimeout(30) {
                let response = try await sharedTestTransport.send(sent)
                for try await _ in response.body {}
                return response
            }

            let reported = values.withLock { $0 }
            #expect(response.statusCode == 200)
            #expect(reported.count > 1, "\(reported)")
            #expect(zip(reported, reported.dropFirst()).allSatisfy { $0 <= $1 }, "\(reported)")
            #expect(reported.last == Int64(body.count))
        }
    }
}

@Suite(.timeLimit(.minutes(3))) struct URLSessionConnectionLimitTests {
    @Test func requestQueuedBehindABusyConnectionDoesNotTimeOutWhileWaiting() async throws {
        try await withTestServer { server in
            try await withFaultServer { faults in
                let (_, configuration, held) = try await Self.oneBusyConnection(server, gate: "limit")
                // 2 s: once sent, the answer must come within it, also on a loaded machine.
                let queued = TestRequest<JSON>(configuration: configuration) { server.get("/users", timeout: 2) }
                    .perform()

                // A request that times out after 3 s is the clock: the queued one has now waited
                // longer than its own 2 s timeout.
                let clock = await faults.request(.slow, configuration: testConfiguration(), timeout: 3).perform()
                    .result
                server.release("limit")

                let users = try await withTimeout(30) { try await queued.value }
                _ = try await withTimeout(30) { try await held.value }
                #expect(users != .null)
                #expect((clock.failure as? BaseServerError)?.code == .timeout)
            }
        }
    }

    @Test func requestCancelledWhileQueuedEndsAtOnceAndGivesItsTurnBack() async throws {
        try await withTestServer { server in
            let (transport, configuration, held) = try await Self.oneBusyConnection(server, gate: "queued")
            // Sent through the transport itself: the pipeline's context would end on cancel anyway.
            let url = server.baseURL.appendingPathComponent("users/2")
            let cancelled = Task { try await transport.send(TransportRequest(method: .get, url: url)) }
            try await Self.waitUntilQueued(1, in: transport)
            let next = TestRequest<JSON>(configuration: configuration) { server.get("/users", timeout: 30) }.perform()
            try await Self.waitUntilQueued(2, in: transport)

            // Cancelled while the one connection is busy: it ends now, not when its turn comes.
            cancelled.cancel()
            let outcome = try await withTimeout(30, "the cancelled request") { await cancelled.result }
            #expect(outcome.failure is CancellationError)
            #expect(transport.requestsWaitingForAConnection == 1)

            server.release("queued")
            _ = try await withTimeout(30, "the held request") { try await held.value }
            _ = try await withTimeout(30, "the request queued after it") { try await next.value }
            // Its turn was handed on, not kept: one more request still gets the connection.
            let after = TestRequest<JSON>(configuration: configuration) { server.get("/users/1", timeout: 30) }
            _ = try await withTimeout(30, "a request after them") { try await after.performAsync() }
            #expect(server.hits(path: "/users/2") == 0)
            #expect(configuration.taskPool.isEmpty)
        }
    }

    /// A transport with one connection per host, busy with a request the server holds at `gate`.
    private static func oneBusyConnection(_ server: TestServer, gate: String) async throws
        -> (URLSessionTransport, NetworkConfiguration, RequestContext<JSON>)
    {
        let transport = URLSessionTransport(maximumConnectionsPerHost: 1)
        let configuration = testConfiguration(transport: transport)
        let held = TestRequest<JSON>(configuration: configuration) { server.get("/hold/\(gate)", timeout: 30) }
            .perform()
        try await server.waitForArrivals(at: gate, count: 1)
        return (transport, configuration, held)
    }

    private static func waitUntilQueued(_ count: Int, in transport: URLSessionTransport) async throws {
        try await withTimeout(30, "\(count) requests to queue") {
            while transport.requestsWaitingForAConnection < count { await Task.yield() }
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

@Suite(.timeLimit(.minutes(3))) struct TransportRedirectCancelTests {
    /// FoundationNetworking aborts with "Received callback for HTTP redirection, but we're not
    /// waiting for it" when a task is cancelled while its redirect callback is pending; the
    /// transport serialises the two.
    @Test(.timeLimit(.minutes(2)))
    func cancellingWhileRedirectsAreFollowedNeverCrashesAndEndsEachRequestOnce() async throws {
        try await withFaultServer { faults in
            let configuration = testConfiguration()
            var generator = SeededGenerator(seed: 0x4ED1_4EC7)
            let delays = (0..<400).map { _ in Double.random(in: 0...0.02, using: &generator) }
            let ends = Locked(0)

            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, delay) in delays.enumerated() {
                    if index >= 32 { try await group.next() }
                    group.addTask {
                        let context = faults.request(.redirectLoop, configuration: configuration, timeout: 20).perform()
                        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { context.cancel() }
                        _ = try await withTimeout(60, "a cancelled redirect loop") { await context.result }
                        ends.withLock { $0 += 1 }
                    }
                }
                try await group.waitForAll()
            }

            #expect(ends.withLock { $0 } == delays.count)
            #expect(configuration.taskPool.isEmpty)
        }
    }
}
