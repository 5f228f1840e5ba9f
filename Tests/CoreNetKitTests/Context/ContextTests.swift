//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import Testing

@testable import CoreNetKit

/// Pure context logic: no I/O.
@Suite(.timeLimit(.minutes(3))) struct ContextTests {
    let queue = DispatchQueue(label: "tests.context")

    @Test func onlyTheFirstTerminalEventIsDelivered() async throws {
        let context = HandleRequestContext<Int>(queue: queue)
        let log = EventLog(context, expectQueue: queue)

        context.emit(data: 1)
        context.emit(error: BaseServerError.cancelled)
        context.emit(data: 2)
        context.cancel()

        #expect(try await log.success() == 1)
        await drain(queue)
        #expect(log.names == ["success", "completed"])
        #expect(log.handlersOffQueue == 0)
    }

    @Test func handlerAttachedAfterTheResultFiresAtOnce() async throws {
        let context = HandleRequestContext<Int>(queue: queue)
        context.emit(data: 7)

        let received = Once<Int>()
        context.onSuccess { received.fire($0) }
        context.onError { _ in Issue.record("onError must not fire after a success") }

        #expect(try await withTimeout { await received.value } == 7)
    }

    @Test func afterCancelNeitherSuccessNorErrorFiresButOnCancelDoes() async throws {
        let context = HandleRequestContext<Int>(queue: queue)
        let log = EventLog(context)
        let stopped = Locked(0)
        context.setCancelAction { stopped.withLock { $0 += 1 } }

        context.cancel()
        context.emit(data: 1)
        context.emit(error: BaseServerError.cancelled)
        context.cancel()

        guard case .cancel = try await log.waitForTerminal() else {
            Issue.record("expected cancel")
            return
        }
        await drain(queue)
        #expect(log.names == ["cancel"])
        #expect(stopped.withLock { $0 } == 1)
        #expect(context.isCancelled)
    }

    @Test func cachedResultIsDeliveredOnceAndBeforeTheTerminalEvent() async throws {
        let concurrent = DispatchQueue(label: "tests.concurrent", attributes: .concurrent)
        let context = HandleRequestContext<Int>(queue: concurrent)
        let log = EventLog(context)

        context.emitCache(data: 1)
        context.emitCache(data: 2)
        context.emit(data: 3)

        #expect(try await log.success() == 3)
        await drain(context.queue)
        #expect(log.names == ["cache", "success", "completed"])
        guard case .cache(let cached) = log.all.first else {
            Issue.record("expected cache first")
            return
        }
        #expect(cached == 1)
    }

    @Test func valueBridgesToAsyncAwait() async throws {
        let context = HandleRequestContext<String>(queue: queue)
        DispatchQueue.global().async { context.emit(data: "done") }

        let value = try await withTimeout { try await context.value }

        #expect(value == "done")
    }

    @Test func cancellingTheAwaitingTaskCancelsTheContext() async throws {
        let context = HandleRequestContext<String>(queue: queue)
        let task = Task { try await context.value }

        task.cancel()
        let result = await task.result

        guard case .failure(let error) = result else {
            Issue.record("expected failure")
            return
        }
        #expect((error as? BaseServerError)?.code == .cancelled)
        #expect(context.isCancelled)
    }

    @Test func mapTransformsSuccessAndCacheAndPassesErrorsThrough() async throws {
        let source = HandleRequestContext<Int>(queue: queue)
        let mapped = source.map { "#\($0)" }
        let log = EventLog(mapped)

        source.emitCache(data: 1)
        source.emit(data: 2)

        #expect(try await log.success() == "#2")
        await drain(queue)
        #expect(log.names == ["cache", "success", "completed"])

        let failing = HandleRequestContext<Int>(queue: queue)
        let failingLog = EventLog(failing.map { $0 * 2 })
        failing.emit(error: BaseServerError.invalidRequest("x"))
        #expect((try await failingLog.failure() as? BaseServerError)?.code == .invalidRequest)
    }

    @Test func flatMapChainsASecondContextAndCancelsTheRunningStage() async throws {
        let login = HandleRequestContext<String>(queue: queue)
        let profile = HandleRequestContext<Int>(queue: queue)
        let chained = login.flatMap { token -> RequestContext<Int> in
            #expect(token == "token-1")
            return profile
        }
        let log = EventLog(chained)

        login.emit(data: "token-1")
        try await withTimeout { await waitUntil { profile.core.isObserved } }
        chained.cancel()

        guard case .cancel = try await log.waitForTerminal() else {
            Issue.record("expected cancel")
            return
        }
        #expect(profile.isCancelled)
    }

    @Test func optionalAndExistentialModelsArriveAsTheyWereEmitted() async throws {
        let optional = HandleRequestContext<Int?>(queue: queue)
        let cached = HandleRequestContext<Int?>(queue: queue)
        let existential = HandleRequestContext<any Sendable>(queue: queue)
        let mapped = optional.map { $0.map { "value \($0)" } }
        let cachedLog = Locked<[Int??]>([])
        cached.onCacheSuccess { value in cachedLog.withLock { $0.append(value) } }

        optional.emit(data: nil)
        cached.emitCache(data: nil)
        cached.emit(data: 7)
        existential.emit(data: 42 as any Sendable)

        #expect(try await optional.value == nil)
        #expect(try await mapped.value == nil)
        #expect(try await cached.value == 7)
        #expect(try await existential.value as? Int == 42)
        await drain(cached.queue)
        #expect(cachedLog.withLock { $0 } == [.some(nil)])
    }

    @Test func passiveContextObservesButCannotEndTheSource() async throws {
        let source = HandleRequestContext<Int>(queue: queue)
        let passive = PassiveRequestContext(source)
        let received = Once<Int>()
        passive.onSuccess { received.fire($0) }

        source.emit(data: 5)

        #expect(try await withTimeout { await received.value } == 5)
        #expect(try await passive.value == 5)
    }

    @Test func handlersAreReleasedAfterTheTerminalEvent() async throws {
        final class Token: Sendable {}
        weak var weakToken: Token?
        let context = HandleRequestContext<Int>(queue: queue)
        do {
            let token = Token()
            weakToken = token
            context.onSuccess { _ in _ = token }
        }

        context.emit(data: 1)
        await drain(queue)

        #expect(weakToken == nil)
    }
}

/// Awaits until every block queued on `queue` so far has run.
func drain(_ queue: DispatchQueue) async {
    await withCheckedContinuation { continuation in queue.async(flags: .barrier) { continuation.resume() } }
}

/// Polls `condition` by yielding (bounded by the caller's timeout).
func waitUntil(_ condition: @Sendable () -> Bool) async {
    while !condition() { await Task.yield() }
}
