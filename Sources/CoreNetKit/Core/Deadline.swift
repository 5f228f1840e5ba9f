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
    /// The request left the transport's queue and is being sent: with `startsWhenSent`, the
    /// deadline starts now (``TransportRequest``'s `beingSent` calls it).
    func requestIsBeingSent()
    /// A piece of the response arrived now.
    func touch()
    /// The pipeline waits for the reader of a streamed body, not for the server: until
    /// ``readerCaughtUp()``, the silence does not count.
    func waitingForReader()
    /// The reader took what waited; the silence counts again from now.
    func readerCaughtUp()
    /// For an exchange run in the caller's Task (``TransportRequest``'s `deadline`): `cancel`
    /// ends the exchange at once (the transport closes the connection) and runs when the
    /// deadline passes, at once if it has passed. The transport gives it when it starts the
    /// exchange, once.
    func cancelsWith(_ cancel: @escaping @Sendable () -> Void)
}

/// The one deadline of an exchange, kept by the pipeline on the configuration's clock: a total
/// deadline from the first byte sent to the last byte read, and an optional idle timeout between
/// pieces of the response. When either passes, the work is cancelled (the transport closes the
/// connection) and the exchange ends in ``BaseServerError/Code-swift.struct/timeout``. The work
/// runs in a Task of its own (``run(timeout:idle:clock:startsWhenSent:_:)``), or in the caller's
/// Task for a transport that gives the timer a way to cancel it
/// (``runInCallersTask(_:startsWhenSent:sending:_:)``).
enum Deadline {
    /// Runs `work` within the deadline. With `startsWhenSent` (a transport that queues requests
    /// before sending them), the deadline starts when the work's activity hears
    /// ``ExchangeActivity/requestIsBeingSent()``, so waiting for a free connection never times a
    /// request out; else it starts now. No task-local value carries that signal: binding one in
    /// the exchange's Task crashed release builds in `swift_task_localValuePush` once this code
    /// was specialised (Swift 6.3.1, Linux).
    static func run(
        timeout: TimeInterval, idle: TimeInterval?, clock: any NetworkClock, startsWhenSent: Bool = false,
        _ work: @escaping @Sendable (ExchangeTimer?) async throws -> ReceivedResponse
    ) async throws -> ReceivedResponse {
        let (total, idle) = limits(timeout: timeout, idle: idle)
        guard total != nil || idle != nil else { return try await work(nil) }
        return try await race(clock, total: total, idle: idle, startsWhenSent: startsWhenSent, work)
    }

    /// The timer of an exchange run in the caller's Task
    /// (``runInCallersTask(_:startsWhenSent:sending:_:)``); `nil` when neither limit applies.
    static func timer(timeout: TimeInterval, idle: TimeInterval?, clock: any NetworkClock) -> ExchangeTimer? {
        let (total, idle) = limits(timeout: timeout, idle: idle)
        guard total != nil || idle != nil else { return nil }
        return ExchangeTimer(clock: clock, total: total, idle: idle, inCallersTask: true)
    }

    /// Runs `work` right here within `timer` (from ``timer(timeout:idle:clock:)``), for a
    /// transport that hands the timer an action that cancels the exchange
    /// (``ExchangeActivity/cancelsWith(_:)``: URLSession's task, closed at once) or that answers
    /// without waiting (a canned StubTransport): no Task, no continuation, no hop. The caller
    /// gives the transport the timer (``TransportRequest``'s `deadline`, and `beingSent` with
    /// `startsWhenSent`). When time is up the timer runs that action, the transport fails at
    /// once, and the failure is the `timeout`. A transport that can only be cancelled through
    /// its Task goes through ``run(timeout:idle:clock:startsWhenSent:_:)`` instead, which also
    /// bounds a transport that ignores the cancellation. `work` gets `request` as an argument
    /// (borrowed): captured, the caller's `var` would be copied for it.
    @inline(__always)
    static func runInCallersTask(
        _ timer: ExchangeTimer?, startsWhenSent: Bool, sending request: borrowing TransportRequest,
        _ work: (borrowing TransportRequest, ExchangeTimer?) async throws -> ReceivedResponse
    ) async throws -> ReceivedResponse {
        guard let timer else { return try await work(request, nil) }
        if !startsWhenSent { timer.startFromCreation() }
        defer { timer.stop() }
        do {
            return try await work(request, timer)
        } catch {
            throw timer.expiry ?? error
        }
    }

    /// The total deadline and idle timeout that apply: `nil` for none (not finite or not positive).
    private static func limits(timeout: TimeInterval, idle: TimeInterval?) -> (TimeInterval?, TimeInterval?) {
        (timeout.isFinite && timeout > 0 ? timeout : nil, idle.flatMap { $0.isFinite && $0 > 0 ? $0 : nil })
    }

    private static func race(
        _ clock: any NetworkClock, total: TimeInterval?, idle: TimeInterval?, startsWhenSent: Bool,
        _ work: @escaping @Sendable (ExchangeTimer?) async throws -> ReceivedResponse
    ) async throws -> ReceivedResponse {
        // The exchange runs as a Task of its own (with the caller's task-local values and
        // priority) and the timer is a callback the clock schedules, not a Task: they race for
        // one outcome, which the timer keeps (one object, one lock). When time is up the exchange
        // is cancelled and the request ends in `timeout` as soon as the exchange has wound down
        // (its partial download kept, its scratch files removed), or after a grace of two seconds
        // on the same clock if the transport ignores the cancellation: no server holds a request
        // much past its deadline, whatever the transport does.
        let timer = ExchangeTimer(clock: clock, total: total, idle: idle)
        // Typed as throwing although it never throws: `Task.init` wraps a non-throwing operation
        // in a throwing one (one more allocation per exchange).
        let exchange = Task<Void, any Error> {
            do {
                timer.exchangeEnded(.success(try await work(timer)))
            } catch {
                timer.exchangeEnded(.failure(error))
            }
        }
        timer.watch(exchange)
        if !startsWhenSent { timer.startFromCreation() }
        defer { timer.stop() }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { timer.wait($0) }
        } onCancel: {
            exchange.cancel()
        }
    }

    static func timedOut(_ message: String) -> BaseServerError {
        BaseServerError(code: .timeout, message: message, underlyingError: URLError(.timedOut))
    }

    /// `seconds` (finite and positive) as a `Duration`, to the nanosecond: through an integer, as
    /// `Duration.seconds(_: Double)` converts through a 128-bit one at several times the cost,
    /// on every request. Past about 292 years it is that much.
    @inline(__always)
    static func duration(_ seconds: TimeInterval) -> Duration {
        let nanoseconds = seconds * 1e9
        return .nanoseconds(nanoseconds < 9.2e18 ? Int64(nanoseconds.rounded()) : Int64(9.2e18))
    }

    static func seconds(_ value: TimeInterval?) -> String {
        guard let value else { return "?" }
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// The timer of one exchange: its total deadline, counted from ``start()``, and its idle timeout,
/// counted from the last piece of the response (``touch()``). It wakes by a callback the clock
/// schedules (``DeadlineWake``), looks at the time, and either sleeps again or expires: then it
/// records the `timeout` and cancels the exchange's Task, and if the exchange has not ended a
/// ``grace`` later (a transport that ignores cancellation), it ends the wait with the `timeout`.
/// For an exchange in the caller's Task (`inCallersTask`) it runs the transport's cancel action
/// (``cancelsWith(_:)``) instead, and there is no grace and no outcome to keep.
///
/// For an exchange in a Task of its own it is also the one-shot outcome: the first of
/// ``exchangeEnded(_:)`` and the grace running out decides it, and ``wait(_:)`` hands it to the
/// waiting caller.
///
/// Not generic over the clock: it keeps its times as durations since it was made
/// (``ExchangeTime``), so a request does not look up the metadata of a clock-generic timer and
/// its state at run time on every access.
///
/// One allocation (a ``LockedObject``): its constants, its state and their lock. Copies are the
/// same timer.
struct ExchangeTimer: ExchangeActivity, DeadlineTarget {
    private struct Constants {
        let time: ExchangeTime
        let total: TimeInterval?
        let idle: TimeInterval?
        /// Whether the exchange runs in the caller's Task (``Deadline``'s `runInCallersTask`):
        /// then expiry runs the transport's cancel action, and there is no Task to cancel, no
        /// outcome to hand over and no grace.
        let inCallersTask: Bool
    }
    private struct State {
        var last: Duration = .zero
        var deadline: Duration?
        var waitingForReader = false
        var started = false
        var stopped = false
        var expired: BaseServerError?
        var exchange: Task<Void, any Error>?
        var wake: DeadlineWake?
        /// The outcome once decided, until the waiter takes it; `decided` stays set.
        var outcome: Result<ReceivedResponse, any Error>?
        var decided = false
        var waiter: UnsafeContinuation<ReceivedResponse, any Error>?
        /// What ends an exchange run in the caller's Task, once its transport gave it.
        var cancel: (@Sendable () -> Void)?

        /// Decides the outcome (once): the continuation to resume with it, if the waiter is there.
        mutating func decide(_ result: Result<ReceivedResponse, any Error>)
            -> (UnsafeContinuation<ReceivedResponse, any Error>, Result<ReceivedResponse, any Error>)?
        {
            guard !decided else { return nil }
            decided = true
            guard let waiter else {
                outcome = result
                return nil
            }
            self.waiter = nil
            return (waiter, result)
        }
    }
    private let object: LockedObject<Constants, State>
    /// How long an expired exchange may take to wind down before the request ends without it.
    static let grace = Duration.seconds(2)

    init(clock: any NetworkClock, total: TimeInterval?, idle: TimeInterval?, inCallersTask: Bool = false) {
        object = LockedObject(
            Constants(time: ExchangeTime(clock), total: total, idle: idle, inCallersTask: inCallersTask),
            state: State())
    }

    /// The time on the timer's clock.
    private var now: Duration { object.withConstants { $0.pointee.time.now } }

    /// The `timeout` once the timer expired; `nil` before.
    var expiry: BaseServerError? { object.withLock { $1.expired } }

    func cancelsWith(_ cancel: @escaping @Sendable () -> Void) {
        let cancelNow: Bool = object.withLock { _, state in
            guard state.expired == nil else { return !state.stopped }
            if !state.stopped { state.cancel = cancel }
            return false
        }
        if cancelNow { cancel() }
    }

    /// Hands the outcome to `waiter` once it is decided, at once if it is.
    func wait(_ waiter: UnsafeContinuation<ReceivedResponse, any Error>) {
        let outcome: Result<ReceivedResponse, any Error>? = object.withLock { _, state in
            guard let outcome = state.outcome else {
                state.waiter = waiter
                return nil
            }
            state.outcome = nil
            return outcome
        }
        if let outcome { waiter.resume(with: outcome) }
    }

    /// The exchange's Task returned `result`: the timer stops, and the outcome is decided unless
    /// the grace already ran out. A failure after the timer expired is the `timeout`.
    func exchangeEnded(_ result: Result<ReceivedResponse, any Error>) {
        let (wake, resume) = object.withLock { _, state in
            state.stopped = true
            state.exchange = nil
            let wake = state.wake
            state.wake = nil
            var result = result
            if case .failure = result, let expired = state.expired { result = .failure(expired) }
            return (wake, state.decide(result))
        }
        wake?.cancel()
        if let (waiter, result) = resume { waiter.resume(with: result) }
    }

    /// The Task the timer cancels when it expires (at once if it already has).
    func watch(_ exchange: Task<Void, any Error>) {
        let cancelNow: Bool = object.withLock { _, state in
            state.exchange = exchange
            return state.expired != nil
        }
        if cancelNow { exchange.cancel() }
    }

    /// Starts the deadline (once) for a caller that does so right after making the timer: on the
    /// system clock from the moment it was made, a few microseconds earlier than now, without
    /// reading the clock again; on another clock, now.
    func startFromCreation() {
        start(at: object.withConstants { $0.pointee.time.systemStart != nil } ? .zero : now)
    }

    private func start(at now: Duration) {
        object.withLock { constants, state in
            guard !state.started, !state.stopped else { return }
            state.started = true
            state.last = now
            state.deadline = constants.pointee.total.map { now + Deadline.duration($0) }
            arm(constants, &state, now: now)
        }
    }

    /// Starts the deadline now (once): the request is being sent.
    func requestIsBeingSent() {
        start(at: now)
    }

    /// The exchange ended: the timer never fires after this.
    func stop() {
        let wake: DeadlineWake? = object.withLock { _, state in
            state.stopped = true
            state.exchange = nil
            state.cancel = nil
            defer { state.wake = nil }
            return state.wake
        }
        wake?.cancel()
    }

    func touch() {
        guard object.withConstants({ $0.pointee.idle != nil }) else { return }
        let now = now
        object.withLock { $1.last = now }
    }

    func waitingForReader() {
        object.withLock { $1.waitingForReader = true }
    }

    func readerCaughtUp() {
        let now = now
        object.withLock { _, state in
            state.waitingForReader = false
            state.last = now
        }
    }

    /// Schedules the next wake: the deadline or the end of the idle time, whichever comes first.
    /// While the pipeline waits for a slow reader, it looks again an idle timeout later.
    private func arm(_ constants: UnsafePointer<Constants>, _ state: inout State, now: Duration) {
        var wake = state.deadline
        if let idle = constants.pointee.idle {
            let idleEnd = (state.waitingForReader ? now : state.last) + Deadline.duration(idle)
            wake = wake.map { min($0, idleEnd) } ?? idleEnd
        }
        guard let wake else { return }
        state.wake = DeadlineWake.schedule(on: constants.pointee.time, at: wake, now: now, self)
    }

    func deadlineReached() {
        let now = now
        enum Action {
            case none
            case cancel(Task<Void, any Error>?)
            case cancelInCallersTask((@Sendable () -> Void)?)
            case giveUp(UnsafeContinuation<ReceivedResponse, any Error>, Result<ReceivedResponse, any Error>)
        }
        let action: Action = object.withLock { constants, state in
            guard !state.stopped else { return .none }
            if let expired = state.expired {
                // The grace passed and the exchange is still running: end without it.
                state.wake = nil
                return state.decide(.failure(expired)).map { .giveUp($0, $1) } ?? .none
            }
            var timeout: BaseServerError?
            if let deadline = state.deadline, now >= deadline {
                let total = Deadline.seconds(constants.pointee.total)
                timeout = Deadline.timedOut("no complete response within the request's timeout of \(total) s")
            } else if let idle = constants.pointee.idle, !state.waitingForReader,
                now >= state.last + Deadline.duration(idle)
            {
                timeout = Deadline.timedOut("nothing arrived for the idle timeout of \(Deadline.seconds(idle)) s")
            }
            guard let timeout else {
                arm(constants, &state, now: now)
                return .none
            }
            state.expired = timeout
            if constants.pointee.inCallersTask {
                state.wake = nil
                defer { state.cancel = nil }
                return .cancelInCallersTask(state.cancel)
            }
            state.wake = DeadlineWake.schedule(on: constants.pointee.time, at: now + Self.grace, now: now, self)
            return .cancel(state.exchange)
        }
        switch action {
        case .none: break
        case .cancel(let exchange): exchange?.cancel()
        case .cancelInCallersTask(let cancel): cancel?()
        case .giveUp(let waiter, let result): waiter.resume(with: result)
        }
    }
}
