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

/// The monitors of one request; created only when the configuration has monitors, so others pay nothing.
final class RequestMonitoring: Sendable {
    private struct State {
        var attempts = 0
        /// Per chain index (the transport last): the time spent inside, later stages included.
        var inclusive: [Duration]
        /// Built only when an event needs it: an exchange-only monitor hears nothing before the request is prepared.
        var request: MonitoredRequest?
        /// `request`'s URL before redaction, so the same URL is not redacted again.
        var url: URL?
        /// The prepared request whose URL the next event reports, built lazily for the same reason as `request`.
        var prepared: ServerRequest?
        /// After the end, only exchanges are delivered (a background revalidation's).
        var finished = false
        var held: [Held] = []

        mutating func takeHeld() -> [Held] {
            defer { held = [] }
            return held
        }
    }

    typealias Event = @Sendable (any NetworkEventMonitor, MonitoredRequest) -> Void

    private struct Held {
        let kind: NetworkMonitorEvents
        let event: Event
        let request: MonitoredRequest
    }

    /// A monitor's events (exchanges included when it has a body limit) and `runsInline`, read once.
    private struct Watcher {
        let monitor: any NetworkEventMonitor
        let events: NetworkMonitorEvents
        let runsInline: Bool
    }

    private let watchers: [Watcher]
    /// An event no monitor asks for is not built.
    private let wanted: NetworkMonitorEvents
    let exchangeBodyLimit: Int?
    /// Stages are timed only for RequestMetrics/stages, which only the request's end tells.
    let timesStages: Bool
    var request: MonitoredRequest { state.withLock { current(&$0) } }
    private let stageNames: [String]
    private let id: String
    /// What the events report until the request is prepared.
    private let created: ServerRequest
    private let encoder: JSONEncoder
    private let clock: any NetworkClock
    private let started: Stopwatch
    private let state: Locked<State>

    /// Events report `request`'s URL (``ServerRequest/url(encoder:)``) until ``prepared(_:)`` or ``sending(to:)``.
    init(
        monitors: [any NetworkEventMonitor], id: String, request: ServerRequest, interceptors: [any Interceptor],
        clock: any NetworkClock, encoder: JSONEncoder
    ) {
        self.watchers = monitors.map { monitor in
            var events = monitor.events.intersection(.all)
            if monitor.exchangeBodyLimit != nil { events.insert(.exchanges) }
            return Watcher(monitor: monitor, events: events, runsInline: monitor.runsInline)
        }
        self.wanted = watchers.reduce([]) { $0.union($1.events) }
        self.timesStages = wanted.contains(.requests)
        self.exchangeBodyLimit = monitors.compactMap(\.exchangeBodyLimit).max()
        self.clock = clock
        self.started = clock.stopwatch()
        self.id = id
        self.created = request
        self.encoder = encoder
        self.stageNames = timesStages ? interceptors.map { TypeNames.name(of: type(of: $0)) } + ["transport"] : []
        let stages = timesStages ? interceptors.count + 1 : 0
        self.state = Locked(State(inclusive: Array(repeating: .zero, count: stages)))
    }

    private func current(_ state: inout State) -> MonitoredRequest {
        if let prepared = state.prepared.take(), let url = try? prepared.url(encoder: encoder) {
            report(url, in: &state)
        }
        if let request = state.request { return request }
        let url = state.url ?? (try? created.url(encoder: encoder))
        let monitored = MonitoredRequest(
            id: id, method: created.method,
            url: url.map(LogRedactor.redact(url:))
                ?? LogRedactor.redact(urlText: created.baseUrl.absoluteString + created.relativeUrl),
            hostURL: url, otherHostURL: created.baseUrl)
        state.request = monitored
        state.url = url
        return monitored
    }

    /// Later events report `request`'s URL, built when needed; one that cannot be built leaves the previous one.
    func prepared(_ request: ServerRequest) {
        state.withLock { $0.prepared = request }
    }

    /// This and later events report `url`.
    func sending(to url: URL) {
        state.withLock { state in
            state.prepared = nil
            report(url, in: &state)
        }
    }

    private func report(_ url: URL, in state: inout State) {
        guard state.url != url else { return }
        state.url = url
        state.request = nil
    }

    /// Build an event only when this is `true`.
    func wants(_ kind: NetworkMonitorEvents) -> Bool { wanted.contains(kind) }

    /// Hands `event` and those held before it to the monitors that ask for them; never waits. Ignored after the end.
    func emit(_ kind: NetworkMonitorEvents, _ event: @escaping Event) {
        let batch = state.withLock { state -> [Held] in
            guard !state.finished else { return [] }
            if wanted.contains(kind) { state.held.append(Held(kind: kind, event: event, request: current(&state))) }
            return state.takeHeld()
        }
        deliver(batch)
    }

    func flush() {
        deliver(state.withLock { state in state.finished ? [] : state.takeHeld() })
    }

    /// Keeps `event` until the next ``emit(_:_:)``, `flush()` or the end: an `async` to an idle queue wakes a
    /// thread, which costs far more than the event, so events go over in batches.
    func hold(_ kind: NetworkMonitorEvents, _ event: @escaping Event) {
        guard wanted.contains(kind) else { return }
        state.withLock { state in
            guard !state.finished else { return }
            state.held.append(Held(kind: kind, event: event, request: current(&state)))
        }
    }

    /// Each monitor redacts and cuts it at its own limit, on its queue. After the request's end (background work) it
    /// is delivered at once, marked `isAfterRequestEnded`.
    func exchanged(_ record: MonitoredExchange.Record) {
        func event(_ record: MonitoredExchange.Record) -> Event {
            { monitor, request in
                guard let limit = monitor.exchangeBodyLimit else { return }
                monitor.request(request, didExchange: MonitoredExchange(record, bodyLimit: limit, reportedAs: request))
            }
        }
        let ended = state.withLock { state -> MonitoredRequest? in
            guard state.finished else {
                state.held.append(Held(kind: .exchanges, event: event(record), request: current(&state)))
                return nil
            }
            return current(&state)
        }
        guard let ended else { return }
        var late = record
        late.isAfterRequestEnded = true
        deliver([Held(kind: .exchanges, event: event(late), request: ended)])
    }

    /// At once for an inline monitor, else one `async` per batch, which its queue runs in order.
    private func deliver(_ batch: [Held]) {
        guard !batch.isEmpty else { return }
        for watcher in watchers {
            let mine =
                batch.allSatisfy { watcher.events.contains($0.kind) }
                ? batch : batch.filter { watcher.events.contains($0.kind) }
            guard !mine.isEmpty else { continue }
            let monitor = watcher.monitor
            if watcher.runsInline {
                for item in mine { item.event(monitor, item.request) }
            } else {
                monitor.queue.async {
                    for item in mine { item.event(monitor, item.request) }
                }
            }
        }
    }

    func addTime(_ duration: Duration, atStage index: Int) {
        state.withLock { state in
            if state.inclusive.indices.contains(index) { state.inclusive[index] += duration }
        }
    }

    func countAttempt() -> Int {
        state.withLock { state in
            state.attempts += 1
            return state.attempts
        }
    }

    /// `nil` is a cancellation; the events still held go first.
    func finish(_ outcome: RequestMetrics.Outcome?) {
        let (held, request, attempts, inclusive) = state.withLock { state in
            state.finished = true
            return (state.takeHeld(), current(&state), state.attempts, state.inclusive)
        }
        guard wanted.contains(.requests) else { return deliver(held) }
        guard let outcome else {
            let cancelled: Event = { monitor, request in monitor.requestWasCancelled(request) }
            deliver(held + [Held(kind: .requests, event: cancelled, request: request)])
            return
        }
        let total = started.elapsed()
        let stages = inclusive.indices.map { index in
            let inner = index + 1 < inclusive.count ? inclusive[index + 1] : .zero
            return RequestMetrics.StageTiming(stage: stageNames[index], duration: max(inclusive[index] - inner, .zero))
        }
        let metrics = RequestMetrics(outcome: outcome, totalDuration: total, attempts: attempts, stages: stages)
        let finished: Event = { monitor, request in monitor.request(request, didFinish: metrics) }
        deliver(held + [Held(kind: .requests, event: finished, request: request)])
    }

    /// For NetworkEventMonitor/request(_:didPrepare:): redacted, no body. Built from the transport's request, not
    /// read back from a `URLRequest` (on Linux each of its headers is a case-insensitive dictionary lookup).
    static func redacted(_ request: TransportRequest) -> URLRequest {
        var shown = request
        shown.body = .none
        shown.headers = HTTPHeaders(
            LogRedactor.redactRequest(headers: request.headers.fields, url: request.url, body: request.body.data)
                .headers)
        let text = request.url.absoluteString
        let redacted = LogRedactor.redact(url: request.url)
        if redacted != text, let url = URL(string: redacted) ?? URL(string: text.components(separatedBy: "?")[0]) {
            shown.url = url
        }
        return shown.urlRequest
    }
}

/// `String(describing:)` type names, cached per type: printing one walks metadata, and monitors name the same types
/// on every request. The table stays small since a program has a bounded number of types.
enum TypeNames {
    private static let names = Locked<[ObjectIdentifier: String]>([:])

    static func name(of type: Any.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = names.withLock({ $0[id] }) { return name }
        let name = String(describing: type)
        names.withLock { $0[id] = name }
        return name
    }
}
