//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// One stage of the path every request travels: it sees the request on the way in and the
/// response (or the error) on the way out.
///
/// The stages are an ordered list, NetworkConfiguration/interceptors. Each one receives the
/// request and the rest of the chain, and calls InterceptorChain/proceed(_:) to go on — once,
/// several times (a retry, a replay after a token refresh) or not at all (an answer from the
/// cache, a canned response). A stage holds no reference to the request's context or to the
/// pipeline: what it may change is what its signature shows.
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
/// The standard list (``NetworkConfiguration/standardInterceptors``) is, from the outside in:
/// ``ResponseValidationInterceptor``, ``RetryInterceptor``, ``PreparatorInterceptor``,
/// ``CacheInterceptor``, ``AccessTokenInterceptor``; then the transport. An interceptor appended
/// to the list runs last, right before the transport, once per attempt, with the access token
/// already in the request; `interceptors.insert(_:before:)` places one relative to a standard
/// stage (`before: CacheInterceptor.self`). The standard stages read their settings from the
/// configuration, and the list always holds each of them once.
public protocol Interceptor: Sendable {
    /// Handles `request`: usually changes it, calls `next.proceed(_:)` and looks at or changes
    /// the response.
    ///
    /// Runs on the Task of the request; cancelling the request cancels that Task, so a stage
    /// that waits should wait cancellably.
    ///
    /// - Parameters:
    ///   - request: the request as the stages before this one left it.
    ///   - next: the rest of the chain, ending in the transport.
    /// - Returns: the response to hand back to the stages before this one.
    /// - Throws: an error that ends the request (unless a stage before this one handles it).
    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse
}

/// The rest of the chain after one ``Interceptor``: calling ``proceed(_:)`` runs the next stage,
/// and after the last one the transport.
///
/// It is the whole of what a stage may use, the same for the standard stages and yours: the
/// request's id and configuration, its clock, whether it was cancelled, the monitors' event sink,
/// the early-answer channel and a fork of the rest of the chain. The attempt a request is on is in
/// the request itself (``ServerRequest/attempt``).
public struct InterceptorChain: Sendable {
    private let exchange: Exchange
    private let index: Int

    init(exchange: Exchange, index: Int) {
        self.exchange = exchange
        self.index = index
    }

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
    ///
    /// - Throws: ``BaseServerError`` with code `cancelled`.
    public func checkCancellation() throws {
        if Task.isCancelled { throw BaseServerError.cancelled }
    }

    /// Runs the rest of the chain for `request` and returns its response.
    ///
    /// May be called more than once (each call goes through every later stage again); a call
    /// after the request was cancelled throws `cancelled`.
    ///
    /// - Throws: the error of a later stage, or of the transport as a BaseServerError.
    public func proceed(_ request: consuming ServerRequest) async throws -> ServerResponse {
        // One call of `run`, so that it is in line once: a second copy would double this frame.
        let monitoring = exchange.monitoring
        let start = monitoring != nil ? exchange.configuration.clock.stopwatch() : nil
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

    /// Hands an event to every monitor of the configuration: `event` runs once per monitor, on
    /// that monitor's ``NetworkEventMonitor/queue``, later (this call never waits), with the request
    /// as monitors see it (its URL redacted). Does nothing without monitors.
    ///
    /// ```swift
    /// next.emit { monitor, request in monitor.request(request, didUseCache: .hit) }
    /// ```
    public func emit(_ event: @escaping @Sendable (any NetworkEventMonitor, MonitoredRequest) -> Void) {
        exchange.monitoring?.emit(event)
    }

    /// Tells the monitors that the request now looks like `request` (a stage changed its URL or
    /// query): the events after this one report its URL, redacted.
    public func updateMonitoredRequest(_ request: ServerRequest) {
        exchange.monitoring?.prepared(request, encoder: exchange.configuration.encoder)
    }

    /// Whether a context waits for an answer before the final one: a request started with
    /// ``BaseServerRequest/perform()`` under ``CachePolicy/firstCacheThenRefreshFromServer``.
    public var takesEarlyAnswer: Bool { exchange.takesEarlyAnswers }

    /// Hands `response`, an answer this stage has before the final one (the cache stage's
    /// stored entry), to the request's `onCacheSuccess` handlers, read by the request's own
    /// mapping; the request goes on either way.
    ///
    /// Does nothing when ``takesEarlyAnswer`` is `false` or the mapping cannot read `response`;
    /// a context takes only the first early answer, and none after its terminal event.
    public func answerEarly(_ response: ServerResponse) async {
        guard exchange.takesEarlyAnswers else { return }
        await exchange.reader?.answerEarly(response)
    }

    /// Whether the request's own mapping reads a model from `response`: for a stage that keeps
    /// a response nobody waits for (the cache stage's background revalidation), as the pipeline
    /// keeps only what the mapping read. `true` when the configuration has no cache adapter
    /// and nobody waits for an early answer (the mapping is then not at hand).
    public func mapsModel(from response: ServerResponse) async -> Bool {
        await exchange.reader?.reads(response) ?? true
    }

    /// The rest of the chain again, for work that outlives the request, such as a revalidation in
    /// the background: the same later stages, configuration and mapping, but no progress, no
    /// early answers and no monitors. Cancelling the request does not cancel what runs on it.
    public func fork() -> InterceptorChain {
        InterceptorChain(exchange: exchange.forked(), index: index)
    }

    @inline(__always)
    private func run(_ request: consuming ServerRequest) async throws -> ServerResponse {
        let interceptors = exchange.interceptors
        var index = index
        var request = request
        // A standard stage runs without its frames (none are without monitors' stage times):
        // passed over when it has nothing to do for this request, in line when its work is short.
        let standardStages = exchange.standardStages
        guard !standardStages.isEmpty else { return try await next(request, at: index) }
        let configuration = exchange.configuration
        // Validation wraps every later stage: it checks the response they return, once each
        // time it is listed (ResponseValidationInterceptor.intercept(_:next:), in line).
        var validations = 0
        while index < interceptors.count, let stage = standardStages[index] {
            switch stage {
            case .validation:
                validations += 1
            case .preparators:
                // PreparatorInterceptor.intercept(_:next:), in line (no monitors to tell).
                try await configuration.prepare(&request)
            case .retry, .cache, .accessToken:
                if !stage.passes(request, under: configuration) {
                    let response = try await interceptors[index].intercept(
                        request, next: InterceptorChain(exchange: exchange, index: index + 1))
                    return try validated(response, validations, configuration)
                }
            }
            index += 1
        }
        return try validated(try await next(request, at: index), validations, configuration)
    }

    /// The stage at `index` with the rest of the chain, or the transport after the last one.
    @inline(__always)
    private func next(_ request: ServerRequest, at index: Int) async throws -> ServerResponse {
        guard index < exchange.interceptors.count else { return try await exchange.send(request) }
        return try await exchange.interceptors[index].intercept(
            request, next: InterceptorChain(exchange: exchange, index: index + 1))
    }

    @inline(__always)
    private func validated(_ response: ServerResponse, _ validations: Int, _ configuration: NetworkConfiguration)
        throws -> ServerResponse
    {
        for _ in 0..<validations {
            try ResponseValidationInterceptor.validate(
                response, validators: configuration.validators, errorMappers: configuration.errorMappers)
        }
        return response
    }
}
