//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A clock that moves only when told to: for tests of time-dependent behaviour without waiting.
///
/// Put it into the configuration (and the token manager's options), start the work, wait for it to sleep with
/// `waitForSleepers(_:)`, then `advance(by:)`: every sleeper whose deadline has come resumes, in deadline order.
///
/// ```swift
/// let clock = ManualClock()
/// var configuration = NetworkConfiguration()
/// configuration.clock = clock
/// clock.advance(by: .seconds(61))   // a 60-second cache entry is now stale
/// ```
///
/// Every method is thread-safe. A cancelled sleeper leaves at once with `CancellationError`.
public final class ManualClock: NetworkClock {
    /// A point in the manual clock's time: how far it was advanced from its start.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// The time since the clock's start.
        public var offset: Swift.Duration

        /// Creates an instant `offset` after the clock's start.
        public init(offset: Swift.Duration) { self.offset = offset }

        public func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let wake: Wake
    }

    /// A sleeping Task, or a request deadline callback (not counted by ``sleeperCount``).
    private enum Wake {
        case task(CheckedContinuation<Void, any Error>)
        case requestDeadline(@Sendable () -> Void)

        var isRequestDeadline: Bool { if case .requestDeadline = self { true } else { false } }

        func resume() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .requestDeadline(let fire): fire()
            }
        }
    }

    private struct State {
        var offset: Swift.Duration = .zero
        var sleepers: [Sleeper] = []
        var nextId = 0
        /// Who waits for a count of sleepers (`deadlines` false) or of request deadlines (`true`).
        var watchers: [(count: Int, deadlines: Bool, continuation: CheckedContinuation<Void, Never>)] = []

        func count(deadlines: Bool) -> Int { sleepers.count(where: { $0.wake.isRequestDeadline == deadlines }) }

        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let counts = (sleepers: count(deadlines: false), deadlines: count(deadlines: true))
            var ready: [CheckedContinuation<Void, Never>] = []
            watchers.removeAll { watcher in
                guard watcher.count <= (watcher.deadlines ? counts.deadlines : counts.sleepers) else { return false }
                ready.append(watcher.continuation)
                return true
            }
            return ready
        }
    }

    private let state = Locked(State())
    /// The wall-clock time at the clock's start.
    public let startDate: Date

    /// Creates a clock that stands at `startDate` (by default 2026-01-01 00:00:00 UTC).
    public init(startDate: Date = Date(timeIntervalSince1970: 1_767_225_600)) { self.startDate = startDate }

    /// The clock's time now.
    public var now: Instant { Instant(offset: state.withLock { $0.offset }) }
    /// The smallest step: a nanosecond.
    public var minimumResolution: Swift.Duration { .nanoseconds(1) }
    /// `startDate` plus how far the clock was advanced.
    public var currentDate: Date { startDate.addingTimeInterval(state.withLock { $0.offset }.timeInterval) }
    /// How many Tasks sleep on the clock now (back-off, latency, refresh timers); request deadlines are counted
    /// apart in ``requestDeadlineCount`` so they don't confuse waiting for a back-off.
    public var sleeperCount: Int { state.withLock { $0.count(deadlines: false) } }

    /// How many request deadlines (``NetworkConfiguration/timeout`` and
    /// ``NetworkConfiguration/idleTimeout`` timers of requests in flight) wait on the clock now.
    public var requestDeadlineCount: Int { state.withLock { $0.count(deadlines: true) } }

    /// Suspends until the clock has been advanced to `deadline` (returns at once if it has).
    ///
    /// - Throws: `CancellationError` when the calling Task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        let id = state.withLock { state -> Int in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers): (Bool?, [CheckedContinuation<Void, Never>]) = state.withLock { state in
                    if Task.isCancelled { return (false, []) }
                    if deadline.offset <= state.offset { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, wake: .task(continuation)))
                    return (nil, state.takeSatisfiedWatchers())
                }
                for watcher in watchers { watcher.resume() }
                switch resumeNow {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            if case .task(let continuation) = sleeper?.wake { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Calls `action` once the clock has been advanced by `delay` from now (at once on another thread if `delay` is not
    /// positive); counted by ``requestDeadlineCount`` (request deadlines wake this way), not by ``sleeperCount``.
    public func wake(after delay: Swift.Duration, _ action: @escaping @Sendable () -> Void) -> ClockWake {
        let (id, due, watchers): (Int, Bool, [CheckedContinuation<Void, Never>]) = state.withLock { state in
            state.nextId += 1
            let deadline = Instant(offset: state.offset + delay)
            if delay <= .zero { return (state.nextId, true, []) }
            state.sleepers.append(Sleeper(id: state.nextId, deadline: deadline, wake: .requestDeadline(action)))
            return (state.nextId, false, state.takeSatisfiedWatchers())
        }
        for watcher in watchers { watcher.resume() }
        if due { DispatchQueue.global().async(execute: action) }
        return ClockWake { self.state.withLock { state in state.sleepers.removeAll { $0.id == id } } }
    }

    /// Moves the clock forward by `duration` and resumes every sleeper whose deadline has come.
    public func advance(by duration: Swift.Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.offset += max(duration, .zero)
            let offset = state.offset
            let due = state.sleepers.filter { $0.deadline.offset <= offset }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline.offset <= offset }
            return due
        }
        for sleeper in due { sleeper.wake.resume() }
    }

    /// Returns once at least `count` request deadlines wait on the clock: the requests are in flight, and advancing
    /// past their timeout ends them in ``BaseServerError/Code-swift.struct/timeout``.
    public func waitForRequestDeadlines(_ count: Int = 1) async { await waitFor(count, deadlines: true) }

    /// Returns once at least `count` Tasks sleep on the clock; request deadlines are not counted.
    public func waitForSleepers(_ count: Int = 1) async { await waitFor(count, deadlines: false) }

    private func waitFor(_ count: Int, deadlines: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = state.withLock { state in
                if state.count(deadlines: deadlines) >= count { return true }
                state.watchers.append((count, deadlines, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
