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

/// A point in manual time, for the throttle.
struct ManualInstant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> ManualInstant { ManualInstant(offset: offset + duration) }
    func duration(to other: ManualInstant) -> Duration { other.offset - offset }
    static func < (lhs: ManualInstant, rhs: ManualInstant) -> Bool { lhs.offset < rhs.offset }
}

@Suite(.timeLimit(.minutes(3))) struct ProgressThrottleTests {
    @Test func deliversAtMostOneValuePerThirtiethOfASecond() {
        var throttle = ProgressThrottle<ManualInstant>()
        let start = ManualInstant(offset: .zero)
        var delivered: [Int64] = []

        for step in 0..<1000 {  // 1000 callbacks in one second, 1 ms apart
            let now = start.advanced(by: .milliseconds(step))
            if let progress = throttle.offer(completed: Int64(step + 1), expected: 10_000, now: now) {
                delivered.append(progress.completedBytes)
            }
        }

        #expect(delivered.count <= 31)
        #expect(delivered.count >= 29)
        #expect(delivered.first == 1)
    }

    @Test func completionPassesAtOnceAndFinishDoesNotRepeatIt() {
        var throttle = ProgressThrottle<ManualInstant>()
        let now = ManualInstant(offset: .zero)
        _ = throttle.offer(completed: 10, expected: 100, now: now)

        let complete = throttle.offer(completed: 100, expected: 100, now: now)
        let closing = throttle.finish()

        #expect(complete?.fraction == 1.0)
        #expect(closing == nil)
    }

    @Test func valuesThatGoBackwardsAreDropped() {
        var throttle = ProgressThrottle<ManualInstant>()
        let start = ManualInstant(offset: .zero)
        _ = throttle.offer(completed: 500, expected: 1000, now: start)

        let replayed = throttle.offer(completed: 100, expected: 1000, now: start.advanced(by: .seconds(1)))
        let ahead = throttle.offer(completed: 600, expected: 1000, now: start.advanced(by: .seconds(2)))

        #expect(replayed == nil)
        #expect(ahead?.completedBytes == 600)
    }

    @Test func finishClosesWithOneAlsoWhenTheTotalWasUnknown() {
        var throttle = ProgressThrottle<ManualInstant>()
        let running = throttle.offer(completed: 4096, expected: -1, now: ManualInstant(offset: .zero))

        let closing = throttle.finish()

        #expect(running?.fraction == 0 && running?.totalBytes == nil)
        #expect(closing == TransferProgress(completedBytes: 4096, totalBytes: 4096))
        #expect(closing?.fraction == 1.0)
    }

    @Test func finishWithoutAnyBodyClosesWithOneOfZeroBytes() {
        var throttle = ProgressThrottle<ManualInstant>()

        let closing = throttle.finish()

        #expect(closing?.fraction == 1.0 && closing?.completedBytes == 0)
    }
}

@Suite(.timeLimit(.minutes(3))) struct ProgressDeliveryTests {
    @Test func progressEmittedConcurrentlyWithSuccessNeverArrivesAfterIt() async throws {
        for round in 0..<50 {
            let queue = DispatchQueue(label: "tests.progress.\(round)")
            let context = HandleRequestContext<Int>(queue: queue)
            let log = TransferLog(context)
            let producing = Task.detached {
                for step in 1...2000 {
                    context.emitProgress(TransferProgress(completedBytes: Int64(step), totalBytes: 2000), for: .upload)
                }
            }

            context.emit(data: round)
            await producing.value
            await drain(queue)

            #expect(log.afterTerminal.isEmpty)
            #expect(isMonotonic(log.uploads))
        }
    }

    @Test func progressNeverArrivesAfterCancel() async throws {
        let queue = DispatchQueue(label: "tests.progress.cancel")
        let context = HandleRequestContext<Int>(queue: queue)
        let log = TransferLog(context)
        context.emitProgress(TransferProgress(completedBytes: 1, totalBytes: 10), for: .download)

        context.cancel()
        context.emitProgress(TransferProgress(completedBytes: 2, totalBytes: 10), for: .download)
        await drain(queue)

        #expect(log.downloads == [TransferProgress(completedBytes: 1, totalBytes: 10)])
        guard case .terminal("cancel")? = log.all.last else {
            Issue.record("expected cancel last")
            return
        }
    }

    @Test func lateHandlerGetsTheLatestValueAtOnceOnTheCallbackQueue() async throws {
        let queue = DispatchQueue(label: "tests.progress.late")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let context = HandleRequestContext<Int>(queue: queue)
        context.emitProgress(TransferProgress(completedBytes: 5, totalBytes: 10), for: .upload)
        let received = Once<(TransferProgress, Bool)>()

        context.onUploadProgress { progress in received.fire((progress, DispatchQueue.getSpecific(key: key) == true)) }

        let (progress, onQueue) = try await withTimeout { await received.value }
        #expect(progress.fraction == 0.5)
        #expect(onQueue)
    }

    @Test func successfulRequestEndsEachProgressAtOneOnTheCallbackQueueBeforeSuccess() async throws {
        try await withTestServer { server in
            var form = MultipartData()
            form.append("v", name: "a")
            let queue = DispatchQueue(label: "tests.progress.order")
            let context = TestRequest<UploadReport>(configuration: testConfiguration(queue: queue)) { [form] in
                server.post("/upload", form)
            }.perform()
            let log = TransferLog(context)

            _ = try await context.value
            await drain(queue)

            #expect(log.uploads.last?.fraction == 1.0)
            #expect(log.downloads.last?.fraction == 1.0)
            #expect(log.handlersOffQueue == 0)
            #expect(log.afterTerminal.isEmpty)
            guard case .terminal("success")? = log.all.last else {
                Issue.record("expected success last")
                return
            }
        }
    }

    @Test func handlerAttachedWhileTheBodyArrivesGetsTheRestOfTheProgress() async throws {
        try await withTestServer { server in
            let queue = DispatchQueue(label: "tests.progress.mid-body")
            // Nobody watches at first: the request runs without a transfer until the handler comes.
            let context = TestRequest<Data>(configuration: testConfiguration(queue: queue)) {
                server.get("/transfer/partial/200000?after=100000&gate=progress-mid-body")
            }.perform()
            try await server.waitForArrivals(at: "progress-mid-body", count: 1)

            let log = TransferLog(context)
            server.release("progress-mid-body")
            let data = try await context.value
            await drain(queue)

            #expect(data.count == 200_000)
            #expect(log.downloads.last == TransferProgress(completedBytes: 200_000, totalBytes: 200_000))
            #expect(isMonotonic(log.downloads))
            #expect(log.uploads.last?.fraction == 1.0)
            #expect(log.afterTerminal.isEmpty)
        }
    }
}
