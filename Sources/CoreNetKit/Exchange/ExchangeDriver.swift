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

/// Runs one exchange for every transport: feeds the transport's, the reader's and the timer's events to the
/// ``ExchangeStateMachine`` under one lock, and carries out what it decides.
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

    /// The configuration's cookie storage, for the redirects a transport follows.
    struct Cookies: Sendable {
        let storage: HTTPCookieStorage
        /// The request's own `Cookie` header, before the storage's cookies were added.
        let own: String?
    }

    private enum Waiter {
        case head(CheckedContinuation<ExchangeHead, any Error>)
        case chunk(CheckedContinuation<Data?, any Error>)

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

    private struct Work {
        var waiter: Waiter?
        var answer: ExchangeStateMachine.Answer?
        var cancel: (any TransportExchange)?
    }

    private let state: Locked<State>
    private let clock: any NetworkClock
    private let cookies: HTTPCookieStorage?
    private let stopwatch: Stopwatch
    /// Without a deadline or an idle timeout no event needs the time.
    private let timed: Bool
    /// Only with an idle timeout do chunks and the reader's requests need the time.
    private let timesSilence: Bool

    private init(limits: ExchangeStateMachine.Limits, clock: any NetworkClock, cookies: Cookies?) {
        self.clock = clock
        self.stopwatch = clock.stopwatch()
        self.timed = limits.total != nil || limits.idle != nil
        self.timesSilence = limits.idle != nil
        self.cookies = cookies?.storage
        self.state = Locked(State(machine: ExchangeStateMachine(limits: limits), ownCookie: cookies?.own))
    }

    /// Returns at the response head; dropping the body early cancels the transport.
    ///
    /// - Throws: the transport's error, a `timeout`, or `CancellationError` when the calling Task is cancelled.
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

    private var now: Duration { stopwatch.elapsed() }

    /// For an event that starts the deadline.
    private var timedNow: Duration { timed ? now : .zero }

    /// For an event that only the idle timeout looks at.
    private var silenceNow: Duration { timesSilence ? now : .zero }

    // MARK: Events

    private func started(_ exchange: any TransportExchange) {
        let now = timedNow
        handle { state in
            state.transport = exchange
            return state.machine.transportStarted(now: now)
        }
    }

    /// A transport's event that may start the deadline (`sending`, the head).
    func timedEvent(_ event: (inout ExchangeStateMachine, Duration) -> ExchangeStateMachine.Output) {
        let now = timedNow
        handle { event(&$0.machine, now) }
    }

    /// A transport's other events.
    func transportEvent(_ event: (inout ExchangeStateMachine, Duration) -> ExchangeStateMachine.Output) {
        let now = silenceNow
        handle { event(&$0.machine, now) }
    }

    private func head() async throws -> ExchangeHead {
        // What is already there is taken without suspending.
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

    fileprivate func next() async throws -> Data? {
        // What is already there is taken without suspending.
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

    /// The answer `event` gives the reader at once, if any; the rest of its output is carried out as usual.
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

    /// Stores the redirect's `Set-Cookie` fields and returns the `Cookie` header for `target` (the request's own while
    /// the redirects stay on its origin, then the stored ones); `.none` without a cookie storage.
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
        // Written through the closure, not returned: a value returned through the generic `withLock` is copied by its
        // value witnesses several times per event.
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
                // Under the lock: a pause and a resume carried out after it could pass each other.
                case .pause: transport.pause()
                case .resume: transport.resume()
                case .cancel: work.cancel = transport
                }
            }
            // Once closed, drop the transport so neither keeps the other alive.
            if state.machine.phase == .closed { state.transport = nil }
            // Under the lock, so wakes are set in the order decided; no clock calls back while it is being set.
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

    /// What a ``ResponseBody`` holds: once it and its iterators are gone before the end, the transport is cancelled.
    final class Owner: Sendable {
        let driver: ExchangeDriver

        init(_ driver: ExchangeDriver) { self.driver = driver }

        deinit { driver.readerLeft() }
    }

    /// One iterator of the body: dropping it before the end cancels the transport.
    final class Reader: Sendable {
        let owner: Owner

        init(_ owner: Owner) { self.owner = owner }

        func next() async throws -> Data? { try await owner.driver.next() }

        deinit { owner.driver.readerLeft() }
    }
}
