//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import CoreNetKit

/// The one Dispatch timer that keeps the deadlines of requests on the system clock.
@Suite(.timeLimit(.minutes(3))) struct DeadlineSchedulerTests {
    /// Records the order in which targets are woken.
    final class Recorder: Sendable {
        let woken = Locked<[Int]>([])
        let all: Once<Void>
        let expected: Int

        init(expecting count: Int) {
            expected = count
            all = Once()
        }

        func target(_ name: Int) -> Target { Target(name: name, recorder: self) }

        func record(_ name: Int) {
            let count = woken.withLock { woken in
                woken.append(name)
                return woken.count
            }
            if count == expected { all.fire(()) }
        }
    }

    final class Target: DeadlineTarget {
        let name: Int
        let recorder: Recorder

        init(name: Int, recorder: Recorder) {
            self.name = name
            self.recorder = recorder
        }

        func deadlineReached() { recorder.record(name) }
    }

    @Test func targetsWakeInTheOrderOfTheirDeadlinesAndACancelledOneNever() async throws {
        let scheduler = DeadlineScheduler<Target>()
        let recorder = Recorder(expecting: 3)
        _ = scheduler.schedule(after: .milliseconds(60), recorder.target(3))
        _ = scheduler.schedule(after: .milliseconds(20), recorder.target(1))
        let cancelled = scheduler.schedule(after: .milliseconds(30), recorder.target(99))
        _ = scheduler.schedule(after: .milliseconds(40), recorder.target(2))
        scheduler.cancel(cancelled)
        try await withTimeout(10, "three deadlines") { await recorder.all.value }
        // The cancelled one (due before the last) would have come before it.
        #expect(recorder.woken.withLock { $0 } == [1, 2, 3])
        #expect(scheduler.counts.waiting == 0)
    }

    @Test func anEarlierDeadlineScheduledLaterRearmsTheTimer() async throws {
        let scheduler = DeadlineScheduler<Target>()
        let recorder = Recorder(expecting: 1)
        let late = scheduler.schedule(after: .seconds(3_600), recorder.target(2))
        _ = scheduler.schedule(after: .milliseconds(10), recorder.target(1))
        try await withTimeout(10, "the earlier deadline") { await recorder.all.value }
        #expect(recorder.woken.withLock { $0 } == [1])
        scheduler.cancel(late)
        #expect(scheduler.counts.waiting == 0)
    }

    @Test func cancelledEntriesDoNotPileUpUntilTheirDeadline() {
        let scheduler = DeadlineScheduler<Target>()
        let recorder = Recorder(expecting: 1)
        var kept: [UInt64] = []
        for index in 0..<10_000 {
            let id = scheduler.schedule(after: .seconds(60), recorder.target(index))
            if index.isMultiple(of: 100) { kept.append(id) } else { scheduler.cancel(id) }
        }
        let counts = scheduler.counts
        #expect(counts.waiting == 100)
        #expect(counts.heap <= 2 * 100 + 1_024 + 1)
        for id in kept { scheduler.cancel(id) }
        #expect(scheduler.counts.waiting == 0)
        #expect(recorder.woken.withLock { $0 }.isEmpty)
    }

    @Test func aStaleIdNeitherCancelsTheNextEntryInItsSlotNorCountsTwice() async throws {
        let scheduler = DeadlineScheduler<Target>()
        let recorder = Recorder(expecting: 1)
        let first = scheduler.schedule(after: .seconds(3_600), recorder.target(99))
        scheduler.cancel(first)
        // The freed slot is reused at once; the old id names its previous generation.
        let second = scheduler.schedule(after: .milliseconds(10), recorder.target(1))
        scheduler.cancel(first)
        #expect(scheduler.counts.waiting == 1)
        try await withTimeout(10, "the entry in the reused slot") { await recorder.all.value }
        #expect(recorder.woken.withLock { $0 } == [1])
        scheduler.cancel(second)  // already fired: nothing to remove
        #expect(scheduler.counts.waiting == 0)
    }
}
