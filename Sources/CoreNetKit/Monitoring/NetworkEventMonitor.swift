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

/// The request a monitor event is about.
public struct MonitoredRequest: Sendable, Hashable {
    /// The request's id in the TaskPool.
    public let id: String
    /// The method.
    public let method: HTTPMethod
    /// The URL the request is sent to, redacted; before the preparators ran (the start event) without their query
    /// items. A request whose URL cannot be built shows its base and relative URL.
    public let url: String
    /// The host the request goes to, `"-"` when none; read it here, not from ``url`` (which may not parse).
    public var host: String { hostURL?.host ?? otherHostURL?.host ?? "-" }
    /// ``host`` is read lazily: `URL.host` decodes, and most monitors never ask.
    let hostURL: URL?
    /// The request's base URL, when ``hostURL`` has no host.
    let otherHostURL: URL?

    public static func == (left: MonitoredRequest, right: MonitoredRequest) -> Bool {
        left.id == right.id && left.method == right.method && left.url == right.url && left.host == right.host
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(host)
    }
}

/// What the transport returned for one attempt.
public struct MonitoredResponse: Sendable {
    /// The HTTP status.
    public let statusCode: Int
    /// The bytes of the body that arrived, also when they went to a file or a streaming reader.
    public let bytes: Int
    /// From handing the request to the transport to the complete response.
    public let duration: Duration
    /// The attempt, from 1.
    public let attempt: Int
}

/// A retry the retry stage scheduled.
public struct MonitoredRetry: Sendable {
    /// The attempt that will be made, from 2.
    public let attempt: Int
    /// The most attempts there will be.
    public let maximumAttempts: Int
    /// How long the stage waits first.
    public let delay: Duration
    /// Why: `"status 503"`, or the error code, for example `"timeout"`.
    public let reason: String

    /// Creates the event, for a stage of yours that sends a request again.
    public init(attempt: Int, maximumAttempts: Int, delay: Duration, reason: String) {
        self.attempt = attempt
        self.maximumAttempts = maximumAttempts
        self.delay = delay
        self.reason = reason
    }
}

/// What the cache stage did.
public enum CacheEvent: String, Sendable {
    /// An entry answered or was delivered (`cacheOnly`, `firstCacheThenRefreshFromServer`, fresh under
    /// `cacheIfFreshElseServer`).
    case hit
    /// No entry was found, or (`cacheIfFreshElseServer`) the entry was not fresh.
    case miss
    /// The server confirmed the entry with `304 Not Modified`.
    case revalidated
    /// The server failed and the entry answered instead (`serverIfFailReadFromCache`, or `stale-if-error` under
    /// `cacheIfFreshElseServer`).
    case fallback
}

/// A token refresh the request waited for after the server rejected its token.
public enum TokenRefreshEvent: Sendable, Equatable {
    /// The request waits for a refresh (which it may have started).
    case started
    /// The refresh ended; `succeeded` tells whether the request goes out again with a new token.
    case finished(succeeded: Bool)
}

/// The mapping of a response to the model.
public struct MonitoredDecoding: Sendable {
    /// The model type, as `String(describing:)` prints it.
    public let modelType: String
    /// How long the mapping took.
    public let duration: Duration
}

/// How a request ended and where its time went.
public struct RequestMetrics: Sendable {
    /// How the request ended.
    public enum Outcome: Sendable {
        /// A model, from the server or (`fromCache`) from the cache.
        case success(fromCache: Bool)
        /// An error.
        case failure(any Error)
    }

    /// The time one stage spent, not counting the stages after it.
    public struct StageTiming: Sendable, Equatable {
        /// The stage's type name, or `"transport"` for the transport call.
        public let stage: String
        /// Its own time, summed over every attempt.
        public let duration: Duration
    }

    /// How the request ended.
    public let outcome: Outcome
    /// From the start of the chain to the end of the mapping.
    public let totalDuration: Duration
    /// How many attempts the transport saw.
    public let attempts: Int
    /// The time each stage spent, in chain order, the transport last.
    public let stages: [StageTiming]
}
