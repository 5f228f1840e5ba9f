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

@Suite(.timeLimit(.minutes(3))) struct TaskPoolTests {
    @Test func cancelMidFlightDeliversNeitherSuccessNorErrorAndEmptiesThePool() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let context = TestRequest<JSON>(configuration: configuration) { server.get("/hold/cancel-mid") }.perform()
            let log = EventLog(context)
            try await server.waitForArrivals(at: "cancel-mid", count: 1)
            #expect(configuration.taskPool.ids == [context.requestId])

            context.cancel()

            #expect(configuration.taskPool.isEmpty)
            guard case .cancel = try await log.waitForTerminal() else {
                Issue.record("expected cancel")
                return
            }
            server.release("cancel-mid")
            _ = try await TestRequest<JSON>(configuration: configuration) { server.get("/hold/cancel-mid") }
                .performAsync()
            await drain(context.queue)
            #expect(log.names == ["cancel"])
        }
    }

    @Test func poolListsFindsAndCancelsRequestsById() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let first = TestRequest<JSON>(configuration: configuration) { server.get("/hold/pool", id: "first") }
                .perform()
            let second = TestRequest<JSON>(configuration: configuration) { server.get("/hold/pool", id: "second") }
                .perform()
            let firstLog = EventLog(first)
            let secondLog = EventLog(second)
            try await server.waitForArrivals(at: "pool", count: 2)

            #expect(configuration.taskPool.ids == ["first", "second"])
            #expect(configuration.taskPool.find(id: "second")?.method == .get)
            configuration.taskPool.cancel(id: "first")

            guard case .cancel = try await firstLog.waitForTerminal() else {
                Issue.record("expected cancel")
                return
            }
            #expect(configuration.taskPool.ids == ["second"])
            configuration.taskPool.cancelAll()
            guard case .cancel = try await secondLog.waitForTerminal() else {
                Issue.record("expected cancel")
                return
            }
            #expect(configuration.taskPool.isEmpty)
            server.release("pool")
        }
    }

    @Test func anAsyncRequestIsListedFoundAndCancelledByItsGeneratedId() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let named = TestRequest<JSON>(configuration: configuration) { server.get("/hold/pool-async", id: "named") }
                .perform()
            let namedLog = EventLog(named)
            let running = Task {
                try await TestRequest<JSON>(configuration: configuration) { server.get("/hold/pool-async") }
                    .performAsync()
            }
            try await server.waitForArrivals(at: "pool-async", count: 2)

            let pool = configuration.taskPool
            #expect(pool.count == 2)
            let generated = try #require(pool.ids.first { $0 != "named" })
            #expect(generated.hasPrefix("request-"))
            #expect(pool.find(id: generated)?.method == .get)
            #expect(pool.find(id: generated)?.url.hasSuffix("/hold/pool-async") == true)
            #expect(pool.entries.count == 2)

            pool.cancel(id: generated)
            let error = try await #require(throws: BaseServerError.self) { try await running.value }
            #expect(error.code == .cancelled)
            #expect(pool.ids == ["named"])

            server.release("pool-async")
            _ = try await namedLog.success()
            #expect(pool.isEmpty)
        }
    }

    @Test func aContextWithAGeneratedIdIsListedFoundCancelledAndLeavesThePoolWhenItEnds() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let pool = configuration.taskPool
            let cancelled = TestRequest<JSON>(configuration: configuration) { server.get("/hold/pool-generated") }
                .perform()
            let finished = TestRequest<JSON>(configuration: configuration) { server.get("/hold/pool-generated") }
                .perform()
            let cancelledLog = EventLog(cancelled)
            let finishedLog = EventLog(finished)
            try await server.waitForArrivals(at: "pool-generated", count: 2)

            #expect(Set(pool.ids) == [cancelled.requestId, finished.requestId])
            #expect(cancelled.requestId.hasPrefix("request-") && finished.requestId.hasPrefix("request-"))
            #expect(pool.find(id: cancelled.requestId)?.url.hasSuffix("/hold/pool-generated") == true)

            pool.cancel(id: cancelled.requestId)
            guard case .cancel = try await cancelledLog.waitForTerminal() else {
                Issue.record("expected cancel")
                return
            }
            #expect(pool.ids == [finished.requestId])

            server.release("pool-generated")
            _ = try await finishedLog.success()
            #expect(pool.isEmpty)
        }
    }

    @Test(arguments: [0, 1, 9, 10, 99, 100, 12_345, Int.max])
    func aGeneratedIdNamesItsNumber(number: Int) {
        let id = TaskPool.generatedId(number)
        #expect(id == "request-\(number)")
        #expect(TaskPool.generatedNumber(id) == number)
    }

    @Test(arguments: ["request-", "request-007", "request-x1", "request-1x", "Request-1", "named", "request--1"])
    func anIdThePoolDidNotMakeIsNotTakenForAGeneratedOne(id: String) {
        #expect(TaskPool.generatedNumber(id) == nil)
    }

    @Test func secondRequestWithTheIdOfOneInFlightJoinsIt() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let first = TestRequest<JSON>(configuration: configuration) { server.get("/hold/join", id: "profile") }
                .perform()
            try await server.waitForArrivals(at: "join", count: 1)
            let second = TestRequest<JSON>(configuration: configuration) { server.get("/hold/join", id: "profile") }
                .perform()
            let firstLog = EventLog(first)
            let secondLog = EventLog(second)

            server.release("join")

            #expect(try await firstLog.success() == ["gate": "join"])
            #expect(try await secondLog.success() == ["gate": "join"])
            #expect(server.hits("GET", "/hold/join") == 1)
            #expect(configuration.taskPool.isEmpty)
        }
    }

    @Test func requestWithTheIdOfOneInFlightOfAnotherModelTypeFailsAndLeavesItRunning() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let first = TestRequest<JSON>(configuration: configuration) { server.get("/hold/join-type", id: "typed") }
                .perform()
            try await server.waitForArrivals(at: "join-type", count: 1)
            let other = TestRequest<String>(configuration: configuration) {
                server.get("/hold/join-type", id: "typed")
            }.perform()
            let firstLog = EventLog(first)

            await #expect {
                _ = try await other.value
            } throws: { error in
                (error as? BaseServerError)?.code == .invalidRequest
            }
            #expect(configuration.taskPool.ids == ["typed"])
            server.release("join-type")
            #expect(try await firstLog.success() == ["gate": "join-type"])
            #expect(server.hits(path: "/hold/join-type") == 1)
        }
    }

    @Test func cancellingOneJoinedContextLeavesTheOtherRunning() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let first = TestRequest<JSON>(configuration: configuration) {
                server.get("/hold/join-cancel", id: "shared")
            }.perform()
            let second = TestRequest<JSON>(configuration: configuration) {
                server.get("/hold/join-cancel", id: "shared")
            }.perform()
            let secondLog = EventLog(second)
            try await server.waitForArrivals(at: "join-cancel", count: 1)

            first.cancel()
            #expect(configuration.taskPool.ids == ["shared"])
            server.release("join-cancel")

            #expect(try await secondLog.success() == ["gate": "join-cancel"])
            #expect(first.isCancelled)
            #expect(server.hits(path: "/hold/join-cancel") == 1)
        }
    }

    @Test func hundredConcurrentRequestsEachSucceedExactlyOnce() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let contexts = (1...100).map { index in
                TestRequest<User>(configuration: configuration) { server.get("/users/\(index % 5 + 1)") }.perform()
            }
            let logs = contexts.map { EventLog($0) }

            for log in logs { _ = try await log.success(60) }
            await drain(contexts[0].queue)

            #expect(logs.allSatisfy { $0.names == ["success", "completed"] })
            #expect(server.hits(path: "/users/1") == 20)
            #expect(configuration.taskPool.isEmpty)
        }
    }

    @Test func handlersRunOnTheConfiguredQueueByDefaultMain() async throws {
        try await withTestServer { server in
            let queue = DispatchQueue(label: "tests.custom")
            let custom = TestRequest<User>(configuration: testConfiguration(queue: queue)) { server.get("/users/1") }
                .perform()
            let customLog = EventLog(custom, expectQueue: queue)
            let onMain = TestRequest<User>(configuration: testConfiguration(queue: .main)) { server.get("/users/2") }
                .perform()
            let mainLog = EventLog(onMain, expectQueue: .main)

            _ = try await customLog.success()
            _ = try await mainLog.success()

            #expect(customLog.handlersOffQueue == 0)
            #expect(mainLog.handlersOffQueue == 0)
        }
    }
}
