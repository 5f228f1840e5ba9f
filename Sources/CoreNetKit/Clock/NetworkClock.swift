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
}

extension NetworkClock {
    /// Suspends for `duration` of this clock's time.
    ///
    /// - Throws: `CancellationError` when the calling Task is cancelled first.
    func pause(for duration: Swift.Duration) async throws {
        try await sleep(until: now.advanced(by: duration), tolerance: nil)
    }

    /// How long ago `start` was, a reading of this clock's `now` (also through
    /// `any NetworkClock`): durations for responses, logs and monitors, so a manual clock drives
    /// them too. Zero for a reading of another clock.
    func elapsed(since start: any InstantProtocol<Swift.Duration>) -> Swift.Duration {
        // The reading's type compared as a type, not cast as a value: a dynamic cast from an
        // existential is several hundred instructions, and this runs for every response.
        func duration<Start: InstantProtocol<Swift.Duration>>(since start: Start) -> Swift.Duration {
            guard Start.self == Instant.self else { return .zero }
            return unsafeBitCast(start, to: Instant.self).duration(to: now)
        }
        return duration(since: start)
    }
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
}

extension SystemClock {
    /// A fixed instant of the system clock (the first time it is asked for). Times the library
    /// keeps for every request are durations since it: `ContinuousClock.Instant` is resilient,
    /// so each copy of one (or of an optional one) goes through value witnesses, where a
    /// `Duration` is two plain integers.
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
