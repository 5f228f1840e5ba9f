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
    /// A piece of the response arrived now.
    func touch()
    /// The pipeline waits for the reader of a streamed body, not for the server: until
    /// ``readerCaughtUp()``, the silence does not count.
    func waitingForReader()
    /// The reader took what waited; the silence counts again from now.
    func readerCaughtUp()
}

/// The one deadline of an exchange, kept by the pipeline on the configuration's clock: a total
/// deadline from the first byte sent to the last byte read, and an optional idle timeout between
/// pieces of the response. When either passes, the work is cancelled (the transport closes the
/// connection) and the exchange ends in ``BaseServerError/Code-swift.struct/timeout``.
enum Deadline {
    /// Set while a transport that queues requests before sending them (``URLSessionTransport``'s
    /// connections per host) runs: it calls this when the request leaves the queue, and the
    /// deadline starts then, so waiting for a free connection never times a request out.
    @TaskLocal static var startsWhenSent: (@Sendable () -> Void)?

    /// Tells the deadline of the exchange in progress that its request has left the transport's
    /// queue and is being sent.
    static func requestIsBeingSent() {
        startsWhenSent?()
    }

    static func run<T: Sendable>(
        timeout: TimeInterval, idle: TimeInterval?, clock: any NetworkClock, startsWhenSent: Bool = false,
        _ work: @escaping @Sendable ((any ExchangeActivity)?) async throws -> T
    ) async throws -> T {
        let total = timeout.isFinite && timeout > 0 ? timeout : nil
        let idle = idle.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        guard total != nil || idle != nil else { return try await work(nil) }
        return try await race(clock, total: total, idle: idle, startsWhenSent: startsWhenSent, work)
    }

    private static func race<C: NetworkClock, T: Sendable>(
        _ clock: C, total: TimeInterval?, idle: TimeInterval?, startsWhenSent: Bool,
        _ work: @escaping @Sendable ((any ExchangeActivity)?) async throws -> T
    ) async throws -> T {
        let sent = startsWhenSent ? SentSignal() : nil
        let watch = idle.map { _ in IdleWatch(clock: clock, start: clock.now) }
        let start = sent == nil ? clock.now : nil
        // The exchange and its timer race for one outcome. They run as Tasks of their own (with
        // the caller's task-local values and priority), not as children of a group. When time is
        // up the exchange is cancelled and the request ends in `timeout` as soon as the exchange
        // has wound down (its partial download kept, its scratch files removed), or after a
        // grace of two seconds of real time if the transport ignores the cancellation: no server
        // holds a request much past its deadline, whatever the transport does.
        let outcome = OneShot<T>()
        let expired = Locked<BaseServerError?>(nil)
        let exchange = Task {
            do {
                let value: T
                if let sent {
                    value = try await $startsWhenSent.withValue({ sent.fire() }) { try await work(watch) }
                } else {
                    value = try await work(watch)
                }
                outcome.resume(.success(value))
            } catch {
                outcome.resume(.failure(expired.withLock { $0 } ?? error))
            }
        }
        let timer = Task {
            do {
                if let sent { await sent.wait() }
                try Task.checkCancellation()
                let start = start ?? clock.now
                watch?.touch()
                let deadline = total.map { start.advanced(by: .seconds($0)) }
                try await expire(clock, deadline: deadline, idle: idle, watch: watch, total: total)
            } catch is CancellationError {
                // The exchange ended first.
            } catch {
                let timeout = error as? BaseServerError ?? timedOut("the request's deadline passed")
                expired.withLock { $0 = timeout }
                exchange.cancel()
                DispatchQueue.global().asyncAfter(deadline: .now() + 2) { outcome.resume(.failure(timeout)) }
            }
        }
        defer {
            exchange.cancel()
            timer.cancel()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { outcome.set($0) }
        } onCancel: {
            exchange.cancel()
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
                // While the pipeline waits for a slow reader, look again an idle timeout later.
                let idleEnd = (watch.isWaitingForReader ? clock.now : watch.last).advanced(by: .seconds(idle))
                wake = wake.map { min($0, idleEnd) } ?? idleEnd
            }
            guard let wake else { return }
            if let manual = clock as? ManualClock, let instant = wake as? ManualClock.Instant {
                try await manual.sleepAsRequestDeadline(until: instant)
            } else {
                try await clock.sleep(until: wake, tolerance: nil)
            }
            let now = clock.now
            if let deadline, now >= deadline {
                throw timedOut("no complete response within the request's timeout of \(seconds(total)) s")
            }
            if let idle, let watch, !watch.isWaitingForReader, now >= watch.last.advanced(by: .seconds(idle)) {
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

/// When a piece of the response last arrived, on the exchange's clock, and whether the pipeline
/// is waiting for a slow reader instead of the server.
final class IdleWatch<C: NetworkClock>: ExchangeActivity {
    private struct State {
        var last: C.Instant
        var waitingForReader = false
    }
    private let clock: C
    private let state: Locked<State>

    init(clock: C, start: C.Instant) {
        self.clock = clock
        self.state = Locked(State(last: start))
    }

    var last: C.Instant { state.withLock { $0.last } }
    var isWaitingForReader: Bool { state.withLock { $0.waitingForReader } }

    func touch() {
        let now = clock.now
        state.withLock { $0.last = now }
    }

    func waitingForReader() {
        state.withLock { $0.waitingForReader = true }
    }

    func readerCaughtUp() {
        let now = clock.now
        state.withLock { state in
            state.waitingForReader = false
            state.last = now
        }
    }
}

/// Fired once, when a queued request is sent; awaited by the deadline's timer.
final class SentSignal: Sendable {
    private struct State {
        var fired = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Locked(State())

    func fire() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard !state.fired else { return nil }
            state.fired = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns when fired, or when the waiting Task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if state.fired || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            fire()
        }
    }
}
