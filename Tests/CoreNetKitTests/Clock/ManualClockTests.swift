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

/// The manual clock the tests drive time with: pure logic, no I/O.
@Suite(.timeLimit(.minutes(3))) struct ManualClockTests {
    @Test func advancingResumesOnlyTheSleepersWhoseDeadlineHasCome() async throws {
        let clock = ManualClock()
        let woke = Locked<[Int]>([])
        let short = Task {
            try await clock.pause(for: .seconds(1))
            woke.withLock { $0.append(1) }
        }
        let long = Task {
            try await clock.pause(for: .seconds(10))
            woke.withLock { $0.append(10) }
        }
        try await withTimeout(30, "two sleepers") { await clock.waitForSleepers(2) }

        clock.advance(by: .seconds(5))
        try await short.value

        #expect(woke.withLock { $0 } == [1])
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(5))
        try await long.value
        #expect(woke.withLock { $0 } == [1, 10])
    }

    @Test func aDeadlineAlreadyPassedReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(3))

        try await clock.pause(for: .zero)

        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperEndsItWithCancellationError() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.pause(for: .seconds(60)) }
        try await withTimeout(30, "the sleeper") { await clock.waitForSleepers(1) }

        task.cancel()

        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func currentDateMovesWithTheClock() {
        let start = Date(timeIntervalSince1970: 1_000_000)
        let clock = ManualClock(startDate: start)

        clock.advance(by: .milliseconds(1500))

        #expect(clock.currentDate == start.addingTimeInterval(1.5))
        #expect(clock.now == ManualClock.Instant(offset: .milliseconds(1500)))
    }
}
