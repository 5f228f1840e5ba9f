//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Observes requests as they travel the chain: metrics, tracing, debugging screens.
///
/// Add monitors to NetworkConfiguration/monitors; each one sees every request of that
/// configuration. Every method has an empty default, so implement only what you need.
///
/// **Where and when the methods run.** Each method runs on the monitor's queue, never on the
/// request's own Task: the request hands the event over and goes on, so a slow monitor costs only
/// its own time (and delays the monitors that share its queue — give a slow one a queue of its
/// own). A request hands its events over in a few batches, not one by one: when an attempt goes
/// to the transport, when a stage emits an event (a retry, a token refresh, the cache, a streamed
/// head) and at its end; so an event reaches a monitor a moment after it happened. A monitor that
/// sets ``runsInline`` is called at each of those points on the request's own thread instead, and
/// one that names its ``events`` hears only those. The events of one request reach a monitor in
/// the order they happened, each once:
///
/// 1. requestDidStart(_:) — once;
/// 2. per attempt: request(_:didPrepare:), request(_:willSendAttempt:), for a streamed body
///    request(_:didStartStreaming:), then request(_:didReceive:) or
///    request(_:didFailAttemptWith:), each followed by request(_:didExchange:) for a monitor that
///    records exchanges; cache and token events
///    (request(_:didUseCache:), request(_:tokenRefresh:)) in between, as they happen; and
///    request(_:willRetry:) before the next attempt;
/// 3. request(_:didDecode:) after a successful mapping;
/// 4. request(_:didFinish:) — once, last; or, for a cancelled request,
///    requestWasCancelled(_:) instead.
///
/// URLs and headers in events are redacted as in logs: tokens, cookies and secret-like
/// parameters never reach a monitor.
public protocol NetworkEventMonitor: Sendable {
    /// The serial queue this monitor's methods run on; NetworkMonitorQueue/shared unless
    /// the monitor says otherwise.
    var queue: DispatchQueue { get }

    /// Whether the methods run at once, on the thread where the request hands its events over,
    /// instead of on ``queue``: `false` by default.
    ///
    /// An async to an idle queue wakes a thread, which on a busy machine costs more than a
    /// monitor's own work. A monitor that runs inline is called on the thread the request is on
    /// (a Task of Swift's pool or a transport's), before the request goes on, so it must return
    /// quickly and never block or wait for another request; the events of different requests
    /// reach it at the same time on different threads, so it guards its state itself. The events
    /// of one request still reach it in order, each once. HARRecorder runs inline.
    var runsInline: Bool { get }

    /// The events this monitor is told of: NetworkMonitorEvents/all by default. Exchanges are
    /// asked for with ``exchangeBodyLimit``. An event that no monitor of a configuration asks
    /// for is not built, and a monitor is not woken for a batch that holds none of its events.
    var events: NetworkMonitorEvents { get }

    /// The request was created and enters the chain.
    func requestDidStart(_ request: MonitoredRequest)
    /// The request was encoded for an attempt; `urlRequest` is what goes on the wire, with
    /// credentials and secret-like query items redacted.
    func request(_ request: MonitoredRequest, didPrepare urlRequest: URLRequest)
    /// Attempt `attempt` (from 1) is handed to the transport.
    func request(_ request: MonitoredRequest, willSendAttempt attempt: Int)
    /// The head of a streamed `2xx` response arrived (its first byte, for a
    /// ``ResponseStream``): the body now goes to the reader as it arrives. At most once per
    /// attempt, before request(_:didReceive:), which reports the bytes the reader was given once
    /// the body ended. `bytes` is 0 and `duration` the time to the head.
    func request(_ request: MonitoredRequest, didStartStreaming response: MonitoredResponse)
    /// The transport returned a response for the current attempt.
    func request(_ request: MonitoredRequest, didReceive response: MonitoredResponse)
    /// The transport failed for the current attempt.
    func request(_ request: MonitoredRequest, didFailAttemptWith error: BaseServerError)
    /// The retry stage will send the request again.
    func request(_ request: MonitoredRequest, willRetry retry: MonitoredRetry)
    /// The cache stage used the cache.
    func request(_ request: MonitoredRequest, didUseCache event: CacheEvent)
    /// The access-token stage started or finished a wait for a token refresh after a rejection.
    func request(_ request: MonitoredRequest, tokenRefresh event: TokenRefreshEvent)
    /// The model was mapped from the response.
    func request(_ request: MonitoredRequest, didDecode decoding: MonitoredDecoding)
    /// The request ended with a result (not cancelled); the last event of the request.
    func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics)
    /// The request was cancelled; the last event of the request.
    func requestWasCancelled(_ request: MonitoredRequest)

    /// How many bytes of each body this monitor wants in request(_:didExchange:); `nil` (the
    /// default) when it wants no exchanges, and then none is built for it.
    var exchangeBodyLimit: Int? { get }
    /// An attempt ended with a response or a failure, or the cache answered: its request and
    /// response as they went on the wire, redacted, with their bodies. Only for a monitor whose
    /// ``exchangeBodyLimit`` is set; once per attempt (after request(_:didReceive:) or
    /// request(_:didFailAttemptWith:)) and once per answer of the cache. An exchange a stage
    /// makes in the background after the request ended (the cache's revalidation of a stale
    /// entry) comes after request(_:didFinish:), marked MonitoredExchange/isAfterRequestEnded.
    func request(_ request: MonitoredRequest, didExchange exchange: MonitoredExchange)
}

extension NetworkEventMonitor {
    public var queue: DispatchQueue { NetworkMonitorQueue.shared }
    public var runsInline: Bool { false }
    public var events: NetworkMonitorEvents { .all }
    public func requestDidStart(_ request: MonitoredRequest) {}
    public func request(_ request: MonitoredRequest, didPrepare urlRequest: URLRequest) {}
    public func request(_ request: MonitoredRequest, willSendAttempt attempt: Int) {}
    public func request(_ request: MonitoredRequest, didStartStreaming response: MonitoredResponse) {}
    public func request(_ request: MonitoredRequest, didReceive response: MonitoredResponse) {}
    public func request(_ request: MonitoredRequest, didFailAttemptWith error: BaseServerError) {}
    public func request(_ request: MonitoredRequest, willRetry retry: MonitoredRetry) {}
    public func request(_ request: MonitoredRequest, didUseCache event: CacheEvent) {}
    public func request(_ request: MonitoredRequest, tokenRefresh event: TokenRefreshEvent) {}
    public func request(_ request: MonitoredRequest, didDecode decoding: MonitoredDecoding) {}
    public func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics) {}
    public func requestWasCancelled(_ request: MonitoredRequest) {}
    public var exchangeBodyLimit: Int? { nil }
    public func request(_ request: MonitoredRequest, didExchange exchange: MonitoredExchange) {}
}

/// Groups of the events of NetworkEventMonitor, for NetworkEventMonitor/events.
public struct NetworkMonitorEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The request's life: NetworkEventMonitor/requestDidStart(_:),
    /// NetworkEventMonitor/request(_:didDecode:), NetworkEventMonitor/request(_:didFinish:) and
    /// NetworkEventMonitor/requestWasCancelled(_:).
    public static let requests = Self(rawValue: 1 << 0)
    /// Each attempt: NetworkEventMonitor/request(_:didPrepare:),
    /// NetworkEventMonitor/request(_:willSendAttempt:),
    /// NetworkEventMonitor/request(_:didStartStreaming:), NetworkEventMonitor/request(_:didReceive:)
    /// and NetworkEventMonitor/request(_:didFailAttemptWith:).
    public static let attempts = Self(rawValue: 1 << 1)
    /// What stages emit (InterceptorChain/emit(_:)): NetworkEventMonitor/request(_:willRetry:),
    /// NetworkEventMonitor/request(_:didUseCache:), NetworkEventMonitor/request(_:tokenRefresh:)
    /// and the events of a user's own stages.
    public static let stages = Self(rawValue: 1 << 2)
    /// Every group.
    public static let all: Self = [.requests, .attempts, .stages]
    /// Exchanges, which a monitor asks for with NetworkEventMonitor/exchangeBodyLimit.
    static let exchanges = Self(rawValue: 1 << 3)
}

/// The queue monitors run on unless they name their own.
public enum NetworkMonitorQueue {
    /// A serial utility queue shared by every monitor that names no queue of its own.
    public static let shared = DispatchQueue(label: "CoreNetKit.monitors", qos: .utility)
}
