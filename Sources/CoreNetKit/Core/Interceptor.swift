//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// One stage of the path every request travels: it sees the request going in, and the response or error coming back.
///
/// The stages are an ordered list, NetworkConfiguration/interceptors. Each receives the request and the rest of the
/// chain, and calls InterceptorChain/proceed(_:) to go on: once, several times (a retry, a replay after a token
/// refresh) or not at all (a cached or canned answer). A stage holds no reference to the request's context or pipeline:
/// what it may change is what its signature shows.
///
/// ```swift
/// struct SigningInterceptor: Interceptor {
///     let key: String
///     func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
///         var signed = request
///         signed.headers["X-Signature"] = sign(request, with: key)
///         return try await next.proceed(signed)
///     }
/// }
///
/// NetworkConfiguration.default.interceptors.append(SigningInterceptor(key: secret))
/// ```
///
/// The built-in stages, from the outside in: ``ResponseValidationInterceptor``, ``RetryInterceptor``,
/// ``PreparatorInterceptor``, ``CacheInterceptor`` (with a cache adapter), ``AccessTokenInterceptor`` (with an access
/// manager); then the transport. A feature that is off has no stage. An appended interceptor runs last, right before
/// the transport, once per attempt, with the access token already in the request; `interceptors.insert(_:before:)`
/// places one relative to a built-in stage. Built-in stages can be removed, replaced or moved like yours.
public protocol Interceptor: Sendable {
    /// Handles `request` as the earlier stages left it: usually changes it, calls `next.proceed(_:)` (the rest of the
    /// chain, ending in the transport) and looks at or changes the response it hands back.
    ///
    /// Runs on the request's Task; cancelling the request cancels that Task, so a stage that waits should wait
    /// cancellably. The request is the stage's own (`consuming`): change it in place and pass it on without a copy (a
    /// plain `ServerRequest` parameter works as well).
    ///
    /// - Throws: an error that ends the request (unless an earlier stage handles it).
    func intercept(_ request: consuming ServerRequest, next: InterceptorChain) async throws -> ServerResponse
}

/// The rest of the chain after one ``Interceptor``: ``proceed(_:)`` runs the next stage, and in the end the transport.
///
/// It is all a stage may use, built-in or yours: the request's id and configuration, its clock, whether it was
/// cancelled and the monitors' event sink. The request's attempt is in the request (``ServerRequest/attempt``).
///
/// A stage may keep the chain and call ``proceed(_:)`` from a Task of its own after the request ended (the cache's
/// background revalidation): that call is not cancelled with the request, reports no progress, and only the monitors
/// that record exchanges hear of it, each exchange marked MonitoredExchange/isAfterRequestEnded.
public struct InterceptorChain: Sendable {
    let exchange: Exchange
    let index: Int

    /// The id of the request in the TaskPool.
    public var requestId: String { exchange.requestId }
    /// The configuration the request runs with.
    public var configuration: NetworkConfiguration { exchange.configuration }
    /// The configuration's clock: where a stage reads the time and waits (a back-off, a lease),
    /// so that tests can drive it with a ``ManualClock``.
    public var clock: any NetworkClock { exchange.configuration.clock }

    /// Whether the request was cancelled (by its context, its TaskPool or its deadline). A stage
    /// that waits should wait cancellably; ``proceed(_:)`` throws `cancelled` by itself.
    public var isCancelled: Bool { Task.isCancelled }

    /// Throws ``BaseServerError/Code-swift.struct/cancelled`` when the request was cancelled.
    public func checkCancellation() throws {
        if Task.isCancelled { throw BaseServerError.cancelled }
    }

    /// Runs the rest of the chain for `request` and returns its response.
    ///
    /// May be called again, running every later stage anew; a call after the request was cancelled throws `cancelled`.
    ///
    /// - Throws: the error of a later stage, or of the transport as a BaseServerError.
    public func proceed(_ request: consuming ServerRequest) async throws -> ServerResponse {
        let monitoring = exchange.monitoring
        let start = monitoring?.timesStages == true ? exchange.configuration.clock.stopwatch() : nil
        defer {
            if let monitoring, let start {
                monitoring.addTime(start.elapsed(), atStage: index)
            }
        }
        return try await run(request)
    }

    /// Whether the configuration has monitors (``NetworkConfiguration/monitors``): build the
    /// value of an event only when it is `true`.
    public var isMonitored: Bool { exchange.monitoring != nil }

    /// Hands an event to every monitor that asks for stage events (NetworkMonitorEvents/stages, in
    /// NetworkEventMonitor/events): `event` runs once per monitor, later on its ``NetworkEventMonitor/queue`` (this
    /// call never waits) or at once for one that runs inline, with the request as monitors see it (URL redacted).
    ///
    /// Does nothing without monitors.
    ///
    /// ```swift
    /// next.emit { monitor, request in monitor.request(request, didUseCache: .hit) }
    /// ```
    public func emit(_ event: @escaping @Sendable (any NetworkEventMonitor, MonitoredRequest) -> Void) {
        exchange.monitoring?.emit(.stages, event)
    }

    /// Hands an exchange a stage answered without the transport (from a store of its own) to the monitors that record
    /// exchanges (NetworkEventMonitor/exchangeBodyLimit); `event` runs as in ``emit(_:)``. No-op without monitors.
    ///
    /// ```swift
    /// next.emitExchange { monitor, request in
    ///     guard let limit = monitor.exchangeBodyLimit else { return }
    ///     monitor.request(request, didExchange: MonitoredExchange(cachedAnswer: answer, at: now, bodyLimit: limit))
    /// }
    /// ```
    public func emitExchange(_ event: @escaping @Sendable (any NetworkEventMonitor, MonitoredRequest) -> Void) {
        exchange.monitoring?.emit(.exchanges, event)
    }

    /// Tells the monitors that the request now looks like `request` (a stage changed its URL or
    /// query): the events after this one report its URL, redacted.
    public func updateMonitoredRequest(_ request: ServerRequest) {
        exchange.monitoring?.prepared(request)
    }

    private func run(_ request: consuming ServerRequest) async throws -> ServerResponse {
        let interceptors = exchange.interceptors
        guard index < interceptors.count else { return try await exchange.send(request) }
        return try await interceptors[index].intercept(
            request, next: InterceptorChain(exchange: exchange, index: index + 1))
    }
}
