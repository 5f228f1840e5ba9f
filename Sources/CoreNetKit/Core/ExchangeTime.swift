//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// A clock's time as the duration since a fixed start: read without a cast on the system clock.
///
/// Plain values and at most one reference, so the timer's constants copy without value witnesses:
/// another clock and its start, which are existentials, are kept out of line (``OtherClock``).
struct ExchangeTime: Sendable {
    /// The start on the system clock, as the duration since its ``SystemClock/epoch``; `nil` for
    /// another clock.
    let systemStart: Duration?
    /// Another clock and the start on it; `nil` for the system clock.
    private let other: OtherClock?

    init(_ clock: any NetworkClock) {
        // A type check, not a cast: the system clock has no state of its own.
        if ObjectIdentifier(type(of: clock)) == ObjectIdentifier(SystemClock.self) {
            systemStart = SystemClock.sinceEpoch
            other = nil
        } else {
            systemStart = nil
            other = OtherClock(clock: clock, start: clock.now)
        }
    }

    /// The clock.
    var clock: any NetworkClock { other?.clock ?? SystemClock() }

    /// The time since the start, on the clock.
    var now: Duration {
        if let systemStart { return SystemClock.sinceEpoch - systemStart }
        return other.map { $0.clock.elapsed(since: $0.start) } ?? .zero
    }
}

/// A clock other than the system clock, and the start an ``ExchangeTime`` counts from on it.
private final class OtherClock: Sendable {
    let clock: any NetworkClock
    let start: any InstantProtocol<Duration>

    init(clock: any NetworkClock, start: any InstantProtocol<Duration>) {
        self.clock = clock
        self.start = start
    }
}
