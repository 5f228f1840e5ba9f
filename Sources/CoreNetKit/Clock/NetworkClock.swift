//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The time source of CoreNetKit: every place the library reads the time or waits asks the
/// clock of its configuration.
///
/// The cache dates its entries with currentDate, the token manager measures refresh windows
/// and timeouts with it, progress is throttled by it, back-off and stub latency sleep on it, and
/// the durations responses, logs and monitors report are measured on it.
/// SystemClock is the default; tests put a ManualClock into the configuration and
/// advance it instead of waiting.
///
/// It is a Swift `Clock` whose `Duration` is `Swift.Duration`, plus the wall-clock time HTTP
/// dates need.
public protocol NetworkClock: Clock, Sendable where Duration == Swift.Duration {
    /// The wall-clock time now, for HTTP dates, cache ages and token expiry.
    var currentDate: Date { get }

    /// Calls `action` once, on a thread of the clock's choosing, when `delay` of this clock's
    /// time has passed (soon, if it is not positive), unless the returned ``ClockWake`` is
    /// cancelled first. Each request's deadline and idle timeout wake this way; the clock never
    /// calls `action` from inside this method.
    ///
    /// The default sleeps in a Task on the clock. ``SystemClock`` keeps every wake on one shared
    /// Dispatch timer; ``ManualClock`` calls it when advanced past it and counts it in
    /// ``ManualClock/requestDeadlineCount``.
    func wake(after delay: Swift.Duration, _ action: @escaping @Sendable () -> Void) -> ClockWake
}

/// A wake set with ``NetworkClock/wake(after:_:)``: cancelling it keeps its action from running.
public struct ClockWake: Sendable {
    private let cancelAction: @Sendable () -> Void

    /// A wake that `cancel` stops.
    public init(cancel: @escaping @Sendable () -> Void) {
        cancelAction = cancel
    }

    /// Keeps the action from running, if it has not run yet.
    public func cancel() {
        cancelAction()
    }
}

extension NetworkClock {
    public func wake(after delay: Swift.Duration, _ action: @escaping @Sendable () -> Void) -> ClockWake {
        let task = Task {
            do {
                try await pause(for: delay)
            } catch {
                return
            }
            action()
        }
        return ClockWake { task.cancel() }
    }

    /// Suspends for `duration` of this clock's time.
    ///
    /// - Throws: `CancellationError` when the calling Task is cancelled first.
    func pause(for duration: Swift.Duration) async throws {
        try await sleep(until: now.advanced(by: duration), tolerance: nil)
    }

    /// Starts a ``Stopwatch`` at this clock's `now` (also through `any NetworkClock`, without a
    /// cast): durations for responses, logs, monitors and the exchange's deadline, so a manual
    /// clock drives them too.
    func stopwatch() -> Stopwatch {
        let start = now
        return Stopwatch { start.duration(to: now) }
    }
}

/// A reading of a clock that tells how long ago it was, on the same clock.
struct Stopwatch: Sendable {
    /// The time passed since the reading.
    let elapsed: @Sendable () -> Swift.Duration
}

/// The real time: `ContinuousClock` for waiting, `Date()` for the wall clock.
public struct SystemClock: NetworkClock {
    /// Creates the system clock.
    public init() {}

    /// The monotonic time now.
    public var now: ContinuousClock.Instant { ContinuousClock.now }
    /// The smallest step the clock measures.
    public var minimumResolution: Swift.Duration { ContinuousClock().minimumResolution }
    /// The wall-clock time now.
    public var currentDate: Date { Date() }

    /// Suspends until `deadline`.
    ///
    /// - Throws: `CancellationError` when the calling Task is cancelled first.
    public func sleep(until deadline: ContinuousClock.Instant, tolerance: Swift.Duration? = nil) async throws {
        try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
    }

    /// Calls `action` when `delay` has passed, from the one Dispatch timer that keeps every
    /// request's deadline (no Task and no timer of its own per wake).
    public func wake(after delay: Swift.Duration, _ action: @escaping @Sendable () -> Void) -> ClockWake {
        let scheduler = WakeAction.scheduler
        let id = scheduler.schedule(after: delay, WakeAction(action))
        return ClockWake { scheduler.cancel(id) }
    }
}

/// An action the shared ``DeadlineScheduler`` runs when its time has come.
final class WakeAction: DeadlineTarget {
    /// The scheduler of every wake on the system clock.
    static let scheduler = DeadlineScheduler<WakeAction>()

    private let action: @Sendable () -> Void

    init(_ action: @escaping @Sendable () -> Void) { self.action = action }

    func deadlineReached() { action() }
}

extension SystemClock {
    /// A fixed instant of the system clock (the first time it is asked for): the shared
    /// scheduler keeps its due times as plain durations since it.
    static let epoch = SystemClock().now

    /// The time now, as the duration since ``epoch``.
    static var sinceEpoch: Swift.Duration { epoch.duration(to: SystemClock().now) }
}

extension Duration {
    /// The duration in seconds, as `Date` arithmetic uses them.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
