//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Something that arrived of a response (its head, a chunk of its body): what the idle timeout
/// watches.
protocol ExchangeActivity: Sendable {
    func touch()
}

/// The one deadline of an exchange, kept by the pipeline on the configuration's clock: a total
/// deadline from the first byte sent to the last byte read, and an optional idle timeout between
/// pieces of the response. When either passes, the work is cancelled (the transport closes the
/// connection) and the exchange ends in ``BaseServerError/Code-swift.struct/timeout``.
enum Deadline {
    static func run<T: Sendable>(
        timeout: TimeInterval, idle: TimeInterval?, clock: any NetworkClock,
        _ work: @escaping @Sendable ((any ExchangeActivity)?) async throws -> T
    ) async throws -> T {
        let total = timeout.isFinite && timeout > 0 ? timeout : nil
        let idle = idle.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        guard total != nil || idle != nil else { return try await work(nil) }
        return try await race(clock, total: total, idle: idle, work)
    }

    private static func race<C: NetworkClock, T: Sendable>(
        _ clock: C, total: TimeInterval?, idle: TimeInterval?,
        _ work: @escaping @Sendable ((any ExchangeActivity)?) async throws -> T
    ) async throws -> T {
        let start = clock.now
        let deadline = total.map { start.advanced(by: .seconds($0)) }
        let watch = idle.map { _ in IdleWatch(clock: clock, start: start) }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work(watch) }
            group.addTask {
                try await expire(clock, deadline: deadline, idle: idle, watch: watch, total: total)
                return nil
            }
            defer { group.cancelAll() }
            // The timer never returns a value: it throws `timeout` or is cancelled.
            while let next = try await group.next() {
                if let value = next { return value }
            }
            throw CancellationError()
        }
    }

    /// Returns never: throws `timeout` when the deadline or the idle timeout passed, or
    /// `CancellationError` when the exchange ended first.
    private static func expire<C: NetworkClock>(
        _ clock: C, deadline: C.Instant?, idle: TimeInterval?, watch: IdleWatch<C>?, total: TimeInterval?
    ) async throws {
        while true {
            var wake = deadline
            if let idle, let watch {
                let idleEnd = watch.last.advanced(by: .seconds(idle))
                wake = wake.map { min($0, idleEnd) } ?? idleEnd
            }
            guard let wake else { return }
            try await clock.sleep(until: wake, tolerance: nil)
            let now = clock.now
            if let deadline, now >= deadline {
                throw timedOut("no complete response within the request's timeout of \(seconds(total)) s")
            }
            if let idle, let watch, now >= watch.last.advanced(by: .seconds(idle)) {
                throw timedOut("nothing arrived for the idle timeout of \(seconds(idle)) s")
            }
        }
    }

    private static func timedOut(_ message: String) -> BaseServerError {
        BaseServerError(code: .timeout, message: message, underlyingError: URLError(.timedOut))
    }

    private static func seconds(_ value: TimeInterval?) -> String {
        guard let value else { return "?" }
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// When a piece of the response last arrived, on the exchange's clock.
final class IdleWatch<C: NetworkClock>: ExchangeActivity {
    private let clock: C
    private let instant: Locked<C.Instant>

    init(clock: C, start: C.Instant) {
        self.clock = clock
        self.instant = Locked(start)
    }

    var last: C.Instant { instant.withLock { $0 } }

    func touch() {
        let now = clock.now
        instant.withLock { $0 = now }
    }
}
