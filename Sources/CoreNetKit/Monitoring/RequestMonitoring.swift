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
    }

    let monitors: [any NetworkEventMonitor]
    let request: MonitoredRequest
    private let stageNames: [String]
    /// Where the request's durations are read: the configuration's clock.
    private let clock: any NetworkClock
    private let started: any InstantProtocol<Swift.Duration>
    private let state: Locked<State>

    init(
        monitors: [any NetworkEventMonitor], id: String, request: ServerRequest, interceptors: [any Interceptor],
        clock: any NetworkClock
    ) {
        self.monitors = monitors
        self.clock = clock
        self.started = clock.now
        let url = URL(string: request.relativeUrl, relativeTo: request.baseUrl)?.absoluteURL ?? request.baseUrl
        self.request = MonitoredRequest(
            id: id, method: request.method, url: LogRedactor.redact(url: url), host: request.baseUrl.host ?? "-")
        self.stageNames = interceptors.map { String(describing: type(of: $0)) } + ["transport"]
        self.state = Locked(State(inclusive: Array(repeating: .zero, count: interceptors.count + 1)))
    }

    /// Hands `event` to every monitor on its queue; never waits for it.
    func emit(_ event: @escaping @Sendable (any NetworkEventMonitor, MonitoredRequest) -> Void) {
        let request = request
        for monitor in monitors {
            monitor.queue.async { event(monitor, request) }
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

    /// Tells the monitors how the request ended: cancelled, or finished with `outcome`.
    func finish(_ outcome: RequestMetrics.Outcome?) {
        guard let outcome else {
            emit { monitor, request in monitor.requestWasCancelled(request) }
            return
        }
        let total = clock.elapsed(since: started)
        let (attempts, inclusive) = state.withLock { ($0.attempts, $0.inclusive) }
        var stages: [RequestMetrics.StageTiming] = []
        for index in inclusive.indices {
            let inner = index + 1 < inclusive.count ? inclusive[index + 1] : .zero
            stages.append(.init(stage: stageNames[index], duration: max(inclusive[index] - inner, .zero)))
        }
        let metrics = RequestMetrics(outcome: outcome, totalDuration: total, attempts: attempts, stages: stages)
        emit { monitor, request in monitor.request(request, didFinish: metrics) }
    }

    /// `request` as a monitor may see it: credentials and secret-like query items redacted,
    /// no body.
    static func redacted(_ request: URLRequest) -> URLRequest {
        var copy = request
        copy.httpBody = nil
        if let url = request.url, let redacted = URL(string: LogRedactor.redact(url: url)) {
            copy.url = redacted
        } else if let url = request.url {
            copy.url = URL(string: url.absoluteString.components(separatedBy: "?")[0])
        }
        for (name, _) in request.allHTTPHeaderFields ?? [:] where LogRedactor.isSecret(header: name) {
            copy.setValue(LogRedactor.mask, forHTTPHeaderField: name)
        }
        return copy
    }
}
