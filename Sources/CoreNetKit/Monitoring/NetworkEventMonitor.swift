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
/// Add monitors to NetworkConfiguration/monitors; each sees every request of that configuration. Every method has
/// an empty default.
///
/// **Where and when the methods run.** On the monitor's ``queue``, never the request's Task, so a slow monitor
/// delays only the monitors sharing its queue (give it its own). Events are handed over in batches — when an
/// attempt goes to the transport, when a stage emits (retry, token refresh, cache, streamed head) and at the end —
/// so they arrive a moment late; a monitor that sets ``runsInline`` is called at those points on the request's
/// thread instead. A monitor hears only its ``events``. One request's events reach it in order, each once:
///
/// 1. requestDidStart(_:) — once;
/// 2. per attempt: request(_:didPrepare:), request(_:willSendAttempt:), request(_:didStartStreaming:) for a streamed
///    body, then request(_:didReceive:) or request(_:didFailAttemptWith:), each followed by request(_:didExchange:)
///    for a monitor that records exchanges; request(_:didUseCache:) and request(_:tokenRefresh:) as they happen;
///    request(_:willRetry:) before the next attempt;
/// 3. request(_:didDecode:) after a successful mapping;
/// 4. request(_:didFinish:) — once, last; or requestWasCancelled(_:) instead.
///
/// URLs and headers in events are redacted as in logs: tokens, cookies and secret-like parameters never appear.
public protocol NetworkEventMonitor: Sendable {
    /// The serial queue this monitor's methods run on; NetworkMonitorQueue/shared by default.
    var queue: DispatchQueue { get }

    /// Whether the methods run at once on the request's thread instead of on ``queue``; `false` by default.
    ///
    /// Saves waking a thread per batch. An inline monitor holds the request up, so it must return quickly and never
    /// block or wait for another request; different requests call it concurrently, so it guards its own state. One
    /// request's events still arrive in order, each once. HARRecorder runs inline.
    var runsInline: Bool { get }

    /// The events this monitor is told of: NetworkMonitorEvents/all by default (exchanges: ``exchangeBodyLimit``).
    /// An event no monitor asks for is not built, and a monitor is not woken for a batch with none of its events.
    var events: NetworkMonitorEvents { get }

    /// The request was created and enters the chain.
    func requestDidStart(_ request: MonitoredRequest)
    /// The request was encoded for an attempt; `urlRequest` is what goes on the wire, redacted.
    func request(_ request: MonitoredRequest, didPrepare urlRequest: URLRequest)
    /// Attempt `attempt` (from 1) is handed to the transport.
    func request(_ request: MonitoredRequest, willSendAttempt attempt: Int)
    /// The head of a streamed `2xx` response (a ``ResponseStream``) arrived; `bytes` is 0 and `duration` the time to
    /// the head. At most once per attempt, before request(_:didReceive:), which reports the bytes once the body ended.
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

    /// How many bytes of each body this monitor wants in request(_:didExchange:); `nil` (default): no exchanges.
    var exchangeBodyLimit: Int? { get }
    /// An attempt ended or the cache answered: request and response as on the wire, redacted, with bodies. Only when
    /// ``exchangeBodyLimit`` is set; once per attempt (after request(_:didReceive:) or request(_:didFailAttemptWith:))
    /// and per cache answer. A background exchange after the request ended (a stale entry's revalidation) comes
    /// after request(_:didFinish:), marked MonitoredExchange/isAfterRequestEnded.
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

    /// The request's life: requestDidStart(_:), request(_:didDecode:), request(_:didFinish:), requestWasCancelled(_:).
    public static let requests = Self(rawValue: 1 << 0)
    /// Each attempt: request(_:didPrepare:), request(_:willSendAttempt:), request(_:didStartStreaming:),
    /// request(_:didReceive:) and request(_:didFailAttemptWith:).
    public static let attempts = Self(rawValue: 1 << 1)
    /// What stages emit (InterceptorChain/emit(_:)): request(_:willRetry:), request(_:didUseCache:),
    /// request(_:tokenRefresh:) and the events of your own stages.
    public static let stages = Self(rawValue: 1 << 2)
    /// Every group.
    public static let all: Self = [.requests, .attempts, .stages]
    static let exchanges = Self(rawValue: 1 << 3)
}

/// The queue monitors run on unless they name their own.
public enum NetworkMonitorQueue {
    /// A serial utility queue.
    public static let shared = DispatchQueue(label: "CoreNetKit.monitors", qos: .utility)
}
