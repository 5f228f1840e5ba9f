//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The time source of CoreNetKit: everything the library times or waits on asks its configuration's clock.
///
/// Cache dates, token refresh windows and timeouts, progress throttling, back-off, stub latency and the durations
/// responses, logs and monitors report all use it. `SystemClock` is the default; tests put a `ManualClock` in
/// the configuration and advance it instead of waiting. A Swift `Clock` on `Swift.Duration`, plus the wall-clock
/// time HTTP dates need.
public protocol NetworkClock: Clock, Sendable where Duration == Swift.Duration {
    /// The wall-clock time now, for HTTP dates, cache ages and token expiry.
    var currentDate: Date { get }

    /// Calls `action` once, on a thread of the clock's choosing, when `delay` of this clock's time has passed (soon,
    /// if not positive), unless the returned ``ClockWake`` is cancelled first; never from inside this method.
    ///
    /// Request deadlines and idle timeouts wake this way. The default sleeps in a Task; ``SystemClock`` uses one
    /// shared Dispatch timer; ``ManualClock`` fires when advanced past it (see ``ManualClock/requestDeadlineCount``).
    func wake(after delay: Swift.Duration, _ action: @escaping @Sendable () -> Void) -> ClockWake
}

/// A wake set with ``NetworkClock/wake(after:_:)``: cancelling it keeps its action from running.
public struct ClockWake: Sendable {
    private let cancelAction: @Sendable () -> Void

    /// Creates a wake that calls `cancel` to stop its action.
    public init(cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }

    /// Keeps the action from running, if it has not run yet.
    public func cancel() { cancelAction() }
}

extension NetworkClock {
    public func wake(after delay: Swift.Duration, _ action: @escaping @Sendable () -> Void) -> ClockWake {
        let task = Task {
            guard (try? await pause(for: delay)) != nil else { return }  // cancelled
            action()
        }
        return ClockWake { task.cancel() }
    }

    /// Suspends for `duration` of this clock's time; throws `CancellationError` if the Task is cancelled first.
    func pause(for duration: Swift.Duration) async throws {
        try await sleep(until: now.advanced(by: duration), tolerance: nil)
    }

    /// Starts a ``Stopwatch`` at `now` (works through `any NetworkClock`), so a manual clock drives reported durations.
    func stopwatch() -> Stopwatch {
        let start = now
        return Stopwatch { start.duration(to: now) }
    }
}

/// A reading of a clock that tells how long ago it was, on the same clock.
struct Stopwatch: Sendable {
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

    /// Suspends until `deadline`; throws `CancellationError` if the calling Task is cancelled first.
    public func sleep(until deadline: ContinuousClock.Instant, tolerance: Swift.Duration? = nil) async throws {
        try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
    }

    /// Calls `action` once `delay` has passed, from the one shared Dispatch timer (no Task or timer per wake).
    public func wake(after delay: Swift.Duration, _ action: @escaping @Sendable () -> Void) -> ClockWake {
        let scheduler = WakeAction.scheduler
        let id = scheduler.schedule(after: delay, WakeAction(action))
        return ClockWake { scheduler.cancel(id) }
    }

    /// The first instant asked for; the shared scheduler keeps due times as durations since it.
    static let epoch = SystemClock().now

    static var sinceEpoch: Swift.Duration { epoch.duration(to: SystemClock().now) }
}

/// An action the shared ``DeadlineScheduler`` runs when its time has come.
final class WakeAction: DeadlineTarget {
    static let scheduler = DeadlineScheduler<WakeAction>()

    private let action: @Sendable () -> Void

    init(_ action: @escaping @Sendable () -> Void) { self.action = action }

    func deadlineReached() { action() }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
