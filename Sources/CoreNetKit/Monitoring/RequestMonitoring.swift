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

/// The monitors of one request and what they are told at the end: created only when the
/// configuration has monitors, so a request without them pays nothing.
final class RequestMonitoring: Sendable {
    private struct State {
        var attempts = 0
        /// Per chain index (the transport last): the time spent inside, later stages included.
        var inclusive: [Duration]
        /// What the events are about; its URL becomes the one sent once the request is prepared.
        /// `nil` until an event needs it: a monitor that records exchanges alone is told of none
        /// before the request is prepared, and the URL of the request as created would be built,
        /// redacted and then replaced for nothing.
        var request: MonitoredRequest?
        /// The URL `request` reports, as it was before redaction: a request sent to the same URL
        /// is not redacted again.
        var url: URL?
        /// The prepared request whose URL the next event reports, kept until one needs it: a
        /// monitor that records exchanges alone hears of none before the request is sent, and its
        /// URL would be built and redacted for nothing (the transport's request carries it).
        var prepared: ServerRequest?
        /// Whether the monitors were told how the request ended: what a stage still does after
        /// that (a revalidation in the background) is not theirs to hear.
        var finished = false
        /// Events told but not yet handed to the monitors' queues, each with the request as it
        /// was when it happened.
        var held: [Held] = []

        mutating func takeHeld() -> [Held] {
            defer { held = [] }
            return held
        }
    }

    /// What a monitor is told: a call of one of its methods.
    typealias Event = @Sendable (any NetworkEventMonitor, MonitoredRequest) -> Void

    /// An event waiting to be handed over: its group, and the request as it was when it happened.
    private struct Held {
        let kind: NetworkMonitorEvents
        let event: Event
        let request: MonitoredRequest
    }

    /// A monitor, what it asks for (its events, and exchanges when it has a body limit) and where
    /// it runs, read once.
    private struct Watcher {
        let monitor: any NetworkEventMonitor
        let events: NetworkMonitorEvents
        let runsInline: Bool
    }

    private let watchers: [Watcher]
    /// What at least one monitor asks for: an event outside it is not built.
    private let wanted: NetworkMonitorEvents
    /// The largest body a monitor wants in its exchange events; `nil` when none records them.
    let exchangeBodyLimit: Int?
    /// Whether the stages are timed: for RequestMetrics/stages, which only the request's end
    /// tells.
    let timesStages: Bool
    /// The request as the next event reports it.
    var request: MonitoredRequest { state.withLock { current(&$0) } }
    private let stageNames: [String]
    private let id: String
    /// The request as it was created, and the encoder of its URL: what the events report until
    /// it is prepared.
    private let created: ServerRequest
    private let encoder: JSONEncoder
    /// Where the request's durations are read: the configuration's clock.
    private let clock: any NetworkClock
    private let started: Stopwatch
    private let state: Locked<State>

    /// Creates the monitoring of `request`, whose URL the events report as
    /// ``ServerRequest/url(encoder:)`` decides it (with `encoder`, the configuration's) until
    /// ``prepared(_:)`` or ``sending(to:)`` tell the URL of the prepared request.
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

    /// The request as an event reports it now: the one created, until a URL is sent.
    private func current(_ state: inout State) -> MonitoredRequest {
        if let prepared = state.prepared {
            state.prepared = nil
            if let url = try? prepared.url(encoder: encoder) { report(url, in: &state) }
        }
        if let request = state.request { return request }
        if let url = state.url {
            let monitored = MonitoredRequest(
                id: id, method: created.method, url: LogRedactor.redact(url: url), hostURL: url,
                otherHostURL: created.baseUrl)
            state.request = monitored
            return monitored
        }
        let url = try? created.url(encoder: encoder)
        let monitored = MonitoredRequest(
            id: id, method: created.method,
            url: url.map(LogRedactor.redact(url:))
                ?? LogRedactor.redact(urlText: created.baseUrl.absoluteString + created.relativeUrl),
            hostURL: url, otherHostURL: created.baseUrl)
        state.request = monitored
        state.url = url
        return monitored
    }

    /// The preparators ran: later events report the URL of `request` as it now is (built when
    /// one needs it; a URL that cannot be built leaves the one reported before).
    func prepared(_ request: ServerRequest) {
        state.withLock { $0.prepared = request }
    }

    /// The request goes to `url`: this and later events report it (redacted when one needs it).
    func sending(to url: URL) {
        state.withLock { state in
            state.prepared = nil
            report(url, in: &state)
        }
    }

    /// Later events report `url`: the request they carry is made again when it is another URL.
    private func report(_ url: URL, in state: inout State) {
        guard state.url != url else { return }
        state.url = url
        state.request = nil
    }

    /// Whether a monitor asks for the events of `kind`: build an event only when one does.
    func wants(_ kind: NetworkMonitorEvents) -> Bool { wanted.contains(kind) }

    /// Hands `event` (of the group `kind`), and the events held before it, to the monitors that
    /// ask for them, each on its queue; never waits for them. Nothing after the request's end but
    /// exchanges (``exchanged(_:)``).
    func emit(_ kind: NetworkMonitorEvents, _ event: @escaping Event) {
        let batch = state.withLock { state -> [Held] in
            guard !state.finished else { return [] }
            if wanted.contains(kind) { state.held.append(Held(kind: kind, event: event, request: current(&state))) }
            return state.takeHeld()
        }
        deliver(batch)
    }

    /// Hands the events held so far to the monitors that ask for them, as ``emit(_:_:)`` does
    /// with its own.
    func flush() {
        deliver(state.withLock { state in state.finished ? [] : state.takeHeld() })
    }

    /// Keeps `event` (of the group `kind`) until the next ``emit(_:_:)`` or the end of the
    /// request: before an attempt goes to the transport, when a stage tells of something and at
    /// the end. An `async` to a monitor's idle queue wakes a thread, which costs far more than the
    /// event (measured: six per request took 35 µs of CPU); the events of a request go over in
    /// two batches instead.
    func hold(_ kind: NetworkMonitorEvents, _ event: @escaping Event) {
        guard wanted.contains(kind) else { return }
        state.withLock { state in
            guard !state.finished else { return }
            state.held.append(Held(kind: kind, event: event, request: current(&state)))
        }
    }

    /// Holds the exchange `record` for the monitors that record exchanges, each redacted and cut
    /// at its own limit on its own queue. After the request's end (a stage's work in the
    /// background) it goes to them at once, marked: what went on the wire is recorded whenever
    /// it went.
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

    /// Hands `batch` to each monitor that asks for some of its events: at once for a monitor
    /// that runs inline, else one `async` for the whole batch, which its queue runs in order.
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

    /// Counts an attempt handed to the transport and returns its number.
    func countAttempt() -> Int {
        state.withLock { state in
            state.attempts += 1
            return state.attempts
        }
    }

    /// Tells the monitors how the request ended: cancelled, or finished with `outcome`; the
    /// events still held go before it.
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
        var stages: [RequestMetrics.StageTiming] = []
        for index in inclusive.indices {
            let inner = index + 1 < inclusive.count ? inclusive[index + 1] : .zero
            stages.append(.init(stage: stageNames[index], duration: max(inclusive[index] - inner, .zero)))
        }
        let metrics = RequestMetrics(outcome: outcome, totalDuration: total, attempts: attempts, stages: stages)
        let finished: Event = { monitor, request in monitor.request(request, didFinish: metrics) }
        deliver(held + [Held(kind: .requests, event: finished, request: request)])
    }

    /// `request` as a monitor sees it in NetworkEventMonitor/request(_:didPrepare:): its URL
    /// and header fields redacted as logs are (``LogRedactor``), no body. Built from the
    /// transport's request, not read back from a `URLRequest` (on Linux each header of one is a
    /// case-insensitive dictionary lookup).
    static func redacted(_ request: TransportRequest) -> URLRequest {
        var shown = request
        shown.body = .none
        shown.headers = HTTPHeaders(LogRedactor.redactRequest(request).headers)
        let text = request.url.absoluteString
        let redacted = LogRedactor.redact(url: request.url)
        if redacted != text, let url = URL(string: redacted) ?? URL(string: text.components(separatedBy: "?")[0]) {
            shown.url = url
        }
        return shown.urlRequest
    }
}
