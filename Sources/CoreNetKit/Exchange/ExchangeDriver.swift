//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs one exchange: starts the transport, feeds its events, the reader's and the timer's to the
/// ``ExchangeStateMachine`` under one lock, and carries out what it decides: answers the reader, tells the transport to
/// pause, go on or cancel, and sets the clock's wake. Every transport takes this path (``Transport/start(_:events:)``),
/// so the deadline, idle timeout, backpressure and cancellation are the same for all.
final class ExchangeDriver: Sendable {
    private struct State {
        var machine: ExchangeStateMachine
        /// The reader, while it waits (there is one reader, so at most one waiter).
        var waiter: Waiter?
        var transport: (any TransportExchange)?
        var wake: ClockWake?
        /// The request's own `Cookie` header, until a redirect leaves its origin.
        var ownCookie: String?
    }

    /// The configuration's cookie storage, for the redirects a transport follows (``TransportEvents/redirecting(_:from:headers:)``).
    struct Cookies: Sendable {
        let storage: HTTPCookieStorage
        /// The request's own `Cookie` header, before the storage's cookies were added.
        let own: String?
    }

    private enum Waiter {
        case head(CheckedContinuation<ExchangeHead, any Error>)
        case chunk(CheckedContinuation<Data?, any Error>)

        /// Hands `answer` over; the state machine answers only what the reader waits for.
        func resume(with answer: ExchangeStateMachine.Answer) {
            switch (self, answer) {
            case (.head(let waiter), .head(let head)): waiter.resume(returning: head)
            case (.head(let waiter), .failure(let error)): waiter.resume(throwing: error)
            case (.chunk(let waiter), .chunk(let chunk)): waiter.resume(returning: chunk)
            case (.chunk(let waiter), .end): waiter.resume(returning: nil)
            case (.chunk(let waiter), .failure(let error)): waiter.resume(throwing: error)
            case (.head, _), (.chunk, _): preconditionFailure("the reader was answered what it does not wait for")
            }
        }
    }

    /// What to do once the lock is released.
    private struct Work {
        var waiter: Waiter?
        var answer: ExchangeStateMachine.Answer?
        var cancel: (any TransportExchange)?
    }

    private let state: Locked<State>
    private let clock: any NetworkClock
    private let cookies: HTTPCookieStorage?
    private let stopwatch: Stopwatch
    /// Whether the exchange has a deadline or an idle timeout: without one, no event needs the time.
    private let timed: Bool
    /// Whether the server's silence is timed (an idle timeout): only then do chunks and reader requests need the time.
    private let timesSilence: Bool

    private init(limits: ExchangeStateMachine.Limits, clock: any NetworkClock, cookies: Cookies?) {
        self.clock = clock
        self.stopwatch = clock.stopwatch()
        self.timed = limits.total != nil || limits.idle != nil
        self.timesSilence = limits.idle != nil
        self.cookies = cookies?.storage
        self.state = Locked(State(machine: ExchangeStateMachine(limits: limits), ownCookie: cookies?.own))
    }

    /// Sends `request` through `transport` within `limits` on `clock` and returns at the response head; the body is
    /// read from the returned response, and dropping it early cancels the transport.
    ///
    /// - Throws: the transport's error, ``BaseServerError/Code-swift.struct/timeout``, or `CancellationError` when the
    ///   calling Task is cancelled.
    static func send(
        _ request: TransportRequest, through transport: any Transport, limits: ExchangeStateMachine.Limits,
        clock: any NetworkClock, cookies: Cookies? = nil
    ) async throws -> TransportResponse {
        let driver = ExchangeDriver(limits: limits, clock: clock, cookies: cookies)
        let head = try await withTaskCancellationHandler {
            try Task.checkCancellation()
            let exchange = transport.start(request, events: TransportEvents(driver: driver))
            driver.started(exchange)
            return try await driver.head()
        } onCancel: {
            driver.readerLeft()
        }
        return TransportResponse(
            statusCode: head.statusCode, headers: head.headers,
            body: ResponseBody(storage: .exchange(Owner(driver))), url: head.url, httpVersion: head.httpVersion)
    }

    /// The time on the clock since the exchange began.
    private var now: Duration { stopwatch.elapsed() }

    /// The time for an event that starts the deadline, `.zero` when nothing is timed.
    private var timedNow: Duration { timed ? now : .zero }

    /// The time for an event that only the idle timeout looks at, `.zero` without one.
    private var silenceNow: Duration { timesSilence ? now : .zero }

    // MARK: Events

    private func started(_ exchange: any TransportExchange) {
        let now = timedNow
        handle { state in
            state.transport = exchange
            return state.machine.transportStarted(now: now)
        }
    }

    /// A transport's event that starts the deadline or may (`sending`, the head).
    func timedEvent(_ event: (inout ExchangeStateMachine, Duration) -> ExchangeStateMachine.Output) {
        let now = timedNow
        handle { event(&$0.machine, now) }
    }

    /// A transport's event the deadline does not start with (a chunk, the end, a failure).
    func transportEvent(_ event: (inout ExchangeStateMachine, Duration) -> ExchangeStateMachine.Output) {
        let now = silenceNow
        handle { event(&$0.machine, now) }
    }

    private func head() async throws -> ExchangeHead {
        // A head that is already there is taken without suspending.
        switch take({ $0.readerTakesHeadIfReady() }) {
        case .head(let head)?: return head
        case .failure(let error)?: throw error
        case .chunk?, .end?, nil: break
        }
        return try await withCheckedThrowingContinuation { continuation in
            handle { state in
                state.waiter = .head(continuation)
                return state.machine.readerWantsHead()
            }
        }
    }

    /// The next chunk of the body, `nil` at its end.
    fileprivate func next() async throws -> Data? {
        // What is already there (a buffered chunk, the end) is taken without suspending.
        switch take({ $0.readerTakesChunkIfReady() }) {
        case .chunk(let chunk)?: return chunk
        case .end?: return nil
        case .failure(let error)?: throw error
        case .head?, nil: break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now = silenceNow
                handle { state in
                    state.waiter = .chunk(continuation)
                    return state.machine.readerWantsChunk(now: now)
                }
            }
        } onCancel: {
            readerLeft()
        }
    }

    /// The answer `event` gives the reader at once, if it gives one; what else it decides is
    /// carried out as for any event.
    private func take(
        _ event: (inout ExchangeStateMachine) -> ExchangeStateMachine.Output?
    ) -> ExchangeStateMachine.Answer? {
        var answer: ExchangeStateMachine.Answer?
        handle { state in
            guard var output = event(&state.machine) else { return ExchangeStateMachine.Output() }
            answer = output.answer.take()
            return output
        }
        return answer
    }

    /// The `Cookie` header for a redirect from `url` (whose response had `headers`) to `target`, after its
    /// `Set-Cookie` fields went into the storage: the request's own header while the redirects stay on its origin,
    /// then the stored cookies for `target`. `.none` without a cookie storage: the header is left as it is.
    func redirectCookie(to target: URL, from url: URL, headers: HTTPHeaders) -> String?? {
        guard let cookies else { return .none }
        let now = clock.currentDate
        CookieJar.store(headers, from: url, in: cookies, now: now)
        let own = state.withLock { state in
            if !RedirectPolicy.isSameOrigin(url, target) { state.ownCookie = nil }
            return state.ownCookie
        }
        return .some(CookieJar.header(for: target, own: own, from: cookies, now: now))
    }

    /// The reader is gone before the end: the transport is cancelled.
    fileprivate func readerLeft() {
        handle { $0.machine.readerLeft() }
    }

    private func timerFired() {
        let now = now
        handle { state in
            state.wake = nil
            return state.machine.timerFired(now: now)
        }
    }

    /// The unread bytes and whether the transport has ended the body (for tests).
    var buffered: (bytes: Int, ended: Bool) {
        state.withLock { ($0.machine.bufferedBytes, $0.machine.transportEnd != nil) }
    }

    // MARK: Carrying out

    private func handle(_ event: (inout State) -> ExchangeStateMachine.Output) {
        // Filled in under the lock, carried out after it. Written through the closure, not returned: a value returned
        // through the generic `withLock` is copied by its value witnesses several times per event.
        var work = Work()
        state.withLock { state in
            let output = event(&state)
            if let answer = output.answer, let waiter = state.waiter {
                state.waiter = nil
                work.waiter = waiter
                work.answer = answer
            }
            if let command = output.command, let transport = state.transport {
                switch command {
                // In the order decided: a pause and a resume carried out after the lock could pass each other and leave
                // a transport paused for good.
                case .pause: transport.pause()
                case .resume: transport.resume()
                case .cancel: work.cancel = transport
                }
            }
            // The transport's exchange reports to this driver: once closed, drop it so neither keeps the other alive.
            if state.machine.phase == .closed { state.transport = nil }
            // Set under the lock, so wakes are set in the order decided; no clock calls back while it is being set.
            switch output.wake {
            case nil: break
            case .cancel?:
                state.wake?.cancel()
                state.wake = nil
            case .at(let time)?:
                state.wake?.cancel()
                state.wake = clock.wake(after: time - now) { [weak self] in self?.timerFired() }
            }
        }
        work.cancel?.cancel()
        if let waiter = work.waiter, let answer = work.answer { waiter.resume(with: answer) }
    }

    /// What a ``ResponseBody`` holds: when the last copy of the body and its iterators are gone before the end, the
    /// transport is cancelled.
    final class Owner: Sendable {
        let driver: ExchangeDriver

        init(_ driver: ExchangeDriver) { self.driver = driver }

        deinit { driver.readerLeft() }
    }

    /// The reading side of a body: dropping it before the end cancels the transport.
    final class Reader: Sendable {
        let owner: Owner

        init(_ owner: Owner) { self.owner = owner }

        func next() async throws -> Data? { try await owner.driver.next() }

        deinit { owner.driver.readerLeft() }
    }
}
