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

/// The stage of NetworkConfiguration/cacheAdapter (setting that adds, replaces or removes it): it answers from its
/// CacheAdapter as each request's CachePolicy says, makes requests conditional, and stores what HTTP (RFC 9111) lets it
/// store.
///
/// An entry (found by method, URL and `Vary` headers) that the configuration's validators reject counts as none. A
/// `304` becomes the stored answer, confirmed (not "from the cache"); a `5xx` or unreachable server (also a token
/// refresh that could not reach it) falls back to the entry where the policy allows. Time comes from
/// NetworkConfiguration/clock.
///
/// Stored: a successful `GET` or `HEAD` without `no-store` (response's or request's) or `Vary: *`, before the response
/// goes back out. Only whole bodies are stored: not a cut, streamed or downloaded one. An entry the request's mapping
/// cannot read is a miss (see CachePolicy), replaced by the server's next answer.
///
/// It runs before the token stage, so a cached answer never waits for a token refresh. Without a cache stage, a
/// `cacheOnly` request fails with `cacheMiss` and is never sent.
public struct CacheInterceptor: Interceptor, BuiltInStage {
    /// The adapter that keeps the entries.
    public let adapter: any CacheAdapter

    /// Creates the stage of `adapter`.
    public init(adapter: any CacheAdapter) { self.adapter = adapter }

    var isOff: Bool { false }

    public func intercept(_ request: consuming ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        let configuration = next.configuration
        let policy = request.cachePolicy
        guard request.method.isCacheable else {
            guard policy == .cacheOnly else { return try await next.proceed(request) }
            throw BaseServerError(code: .cacheMiss, message: "only GET and HEAD are cached")
        }
        let store = CacheStore(
            adapter: adapter, method: request.method,
            url: try RequestEncoder.url(of: request, encoder: configuration.encoder),
            requestHeaders: request.headers)
        let clock = configuration.clock
        // A streamed body is not in the response, a download is in a file: nothing to store.
        let stores = !request.streamsResponseBody && request.downloadDestination == nil
        if policy == .serverOnly {
            let response = try await next.proceed(request)
            if stores { await store.save(response, at: clock.currentDate) }
            return response
        }
        let entry = await store.lookup().flatMap { Self.reads($0, store, configuration) ? $0 : nil }
        // Lazy: parsing the HTTP dates is not free.
        let heuristic = configuration.heuristicFreshness
        let freshness: @Sendable (CachedResponse) -> CacheFreshness = {
            CacheFreshness($0, now: clock.currentDate, heuristic: heuristic)
        }
        if policy == .cacheIfFreshElseServer {
            if let entry, let answer = answer(entry, freshness(entry), request, store, next) {
                next.report(.hit)
                return next.answered(answer)
            }
            next.report(.miss)
        } else {
            next.report(entry == nil ? .miss : .hit)
        }
        if policy == .cacheOnly {
            guard let entry else {
                throw BaseServerError(code: .cacheMiss, message: "nothing is cached for \(store.key.description)")
            }
            return next.answered(entry.serverResponse(for: store.transportRequest, fromCache: true))
        }
        var sent = request
        let conditional = entry.map { Self.addConditionalHeaders(from: $0, to: &sent.headers) } ?? false
        let response: ServerResponse
        do {
            response = try await next.proceed(sent)
        } catch let error as BaseServerError where error.meansUnreachable {
            guard let entry, Self.mayFallBack(policy, freshness(entry)) else { throw error }
            next.report(.fallback)
            return next.answered(entry.serverResponse(for: store.transportRequest, fromCache: true))
        }
        if let entry, response.statusCode == 304, conditional {
            let revalidated = entry.revalidated(by: response.headers, at: clock.currentDate)
                .serverResponse(for: response.transportRequest, fromCache: false, duration: response.duration)
            await store.save(revalidated, at: clock.currentDate)
            next.report(.revalidated)
            return revalidated
        }
        if let entry, (500..<600).contains(response.statusCode), Self.mayFallBack(policy, freshness(entry)) {
            next.report(.fallback)
            return next.answered(
                entry.serverResponse(for: response.transportRequest, fromCache: true, duration: response.duration))
        }
        if stores { await store.save(response, at: clock.currentDate) }
        return response
    }

    /// Whether the configuration's validators accept `entry`: one they reject is a miss, not a failed request.
    private static func reads(_ entry: CachedResponse, _ store: CacheStore, _ configuration: NetworkConfiguration)
        -> Bool
    {
        let validators = configuration.validators
        guard !validators.isEmpty else { return true }
        let response = entry.serverResponse(for: store.transportRequest, fromCache: true)
        return (try? ResponseValidationInterceptor.validate(response, validators: validators, errorMappers: [])) != nil
    }

    /// The CachePolicy/cacheIfFreshElseServer answer without the network: `entry` when fresh for `request`, or stale
    /// within `stale-while-revalidate` (revalidating in the background); `nil` to ask the server.
    private func answer(
        _ entry: CachedResponse, _ freshness: CacheFreshness, _ request: ServerRequest, _ store: CacheStore,
        _ next: InterceptorChain
    ) -> ServerResponse? {
        let requestDirectives = CacheControl(requestHeaders: request.headers)
        if freshness.isFresh(for: requestDirectives) {
            return entry.serverResponse(for: store.transportRequest, fromCache: true)
        }
        let forcesNetwork = requestDirectives.has("no-cache") || requestDirectives.seconds("max-age") == 0
        guard !forcesNetwork, freshness.allowsStaleWhileRevalidate, request.downloadDestination == nil else {
            return nil
        }
        Self.revalidateInBackground(entry, request, store, next)
        return entry.serverResponse(for: store.transportRequest, fromCache: true)
    }

    /// Whether `policy` lets the entry answer when the server fails or cannot be reached: the offline fallback unless
    /// stale with `must-revalidate`, or `stale-if-error` for CachePolicy/cacheIfFreshElseServer.
    private static func mayFallBack(_ policy: CachePolicy, _ freshness: CacheFreshness) -> Bool {
        switch policy {
        case .serverIfFailReadFromCache: freshness.allowsFallback
        case .cacheIfFreshElseServer: freshness.allowsStaleIfError
        case .serverOnly, .cacheOnly, .firstCacheThenRefreshFromServer: false
        }
    }

    /// Sends `request` conditionally through the rest of the chain in its own Task (`stale-while-revalidate`) and
    /// stores the `304`-refreshed entry or the new answer. Nobody waits; a failure keeps the entry; cancelling the
    /// request does not cancel it.
    private static func revalidateInBackground(
        _ entry: CachedResponse, _ request: ServerRequest, _ store: CacheStore, _ next: InterceptorChain
    ) {
        var sent = request
        let conditional = Self.addConditionalHeaders(from: entry, to: &sent.headers)
        Task {
            guard let response = try? await next.proceed(sent) else { return }
            let clock = next.clock
            if response.statusCode == 304, conditional {
                let revalidated = entry.revalidated(by: response.headers, at: clock.currentDate)
                    .serverResponse(for: response.transportRequest, fromCache: false)
                await store.save(revalidated, at: clock.currentDate)
            } else {
                await store.save(response, at: clock.currentDate)
            }
        }
    }

    /// Adds `If-None-Match` / `If-Modified-Since` from `entry` unless the request has its own; returns whether it did.
    private static func addConditionalHeaders(from entry: CachedResponse, to headers: inout [String: String]) -> Bool {
        let names = headers.keys.map { $0.lowercased() }
        guard !names.contains("if-none-match"), !names.contains("if-modified-since") else { return false }
        let eTag = entry.headers["ETag"]
        let lastModified = entry.headers["Last-Modified"]
        if let eTag { headers["If-None-Match"] = eTag }
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        return eTag != nil || lastModified != nil
    }
}

extension BaseServerError {
    /// Whether the server could not be reached (no connection, refused, lost, timeout), also as a failed refresh's
    /// cause.
    var meansUnreachable: Bool {
        if code == .tokenRefreshFailed, let cause = underlyingError {
            return TransportErrorMapper.map(cause).meansUnreachable
        }
        return [.noInternetConnection, .cannotConnect, .connectionLost, .timeout].contains(code)
    }
}

extension InterceptorChain {
    func report(_ event: CacheEvent) {
        emit { monitor, request in monitor.request(request, didUseCache: event) }
    }

    /// Hands the cache's answer `response` to the monitors that record exchanges, and returns it.
    func answered(_ response: ServerResponse) -> ServerResponse {
        guard isMonitored else { return response }
        let date = clock.currentDate
        emitExchange { monitor, request in
            guard let limit = monitor.exchangeBodyLimit else { return }
            monitor.request(request, didExchange: MonitoredExchange(cachedAnswer: response, at: date, bodyLimit: limit))
        }
        return response
    }
}

/// Where one request's answer is cached: the adapter, its method-and-URL key, and the headers for its `Vary` variant.
private struct CacheStore: Sendable {
    let adapter: any CacheAdapter
    let key: CacheKey
    let url: URL
    let requestHeaders: [String: String]

    init(adapter: any CacheAdapter, method: HTTPMethod, url: URL, requestHeaders: [String: String]) {
        self.adapter = adapter
        self.key = CacheKey(method: method, url: url)
        self.url = url
        self.requestHeaders = requestHeaders
    }

    /// A request standing for the cached answer's origin, as nothing was sent.
    var transportRequest: TransportRequest {
        TransportRequest(method: key.method, url: url, headers: HTTPHeaders(requestHeaders))
    }

    /// The entry stored for the method and URL or, when its `Vary` headers differ in the request, for the request's
    /// variant.
    func lookup() async -> CachedResponse? {
        guard let entry = await adapter.load(key) else { return nil }
        let names = CachedResponse.varyNames(entry.headers)
        guard !names.isEmpty else { return entry.variant == nil ? entry : nil }
        guard let variant = CachedResponse.variant(of: requestHeaders, names: names) else { return nil }
        if entry.variant == variant { return entry }
        guard let other = await adapter.load(key.varying(variant)), other.variant == variant else { return nil }
        return other
    }

    /// Stores a network (or `304`-confirmed) `response` HTTP allows to store, under the method and URL (recording the
    /// `Vary` names for the next lookup) and, when it varies, its variant too.
    func save(_ response: ServerResponse, at date: Date) async {
        guard !response.isFromCache,
            let entry = CachedResponse(storing: response, method: key.method, requestHeaders: requestHeaders, at: date)
        else { return }
        if let variant = entry.variant { await adapter.save(entry, for: key.varying(variant)) }
        await adapter.save(entry, for: key)
    }
}

extension BaseServerRequest {
    /// Runs `serverRequest` under a cache-reading CachePolicy as pipeline runs of one policy each: with a `broadcast`,
    /// `firstCacheThenRefreshFromServer` first runs `cacheOnly` for `onCacheSuccess`, then the server run. An entry the
    /// mapping fails on is a miss: `cacheIfFreshElseServer` re-sends under `serverOnly`; other policies fail with
    /// `cacheMiss`, the mapping's error underlying.
    func answerReadingCache(
        _ serverRequest: ServerRequest, configuration: NetworkConfiguration, requestId: String,
        broadcast: RequestBroadcast?
    ) async -> ContextOutcome {
        let policy = serverRequest.cachePolicy
        if policy == .firstCacheThenRefreshFromServer, let broadcast {
            var cacheOnly = serverRequest
            cacheOnly.cachePolicy = .cacheOnly
            // Monitors hear of one request (the server run reports the hit); recorders hear only this run's exchange.
            var quiet = configuration
            if !quiet.monitors.isEmpty {  // a copy of the settings only when needed
                quiet.monitors = configuration.monitors.filter { $0.exchangeBodyLimit != nil }.map(ExchangesOnly.init)
            }
            let (cached, _) = await RequestPipeline.run(
                self, cacheOnly, configuration: quiet, requestId: requestId, broadcast: nil)
            if case .success(let model, _) = cached { broadcast.emitCache(model) }
        }
        let (outcome, fromCache) = await RequestPipeline.run(
            self, serverRequest, configuration: configuration, requestId: requestId, broadcast: broadcast)
        guard fromCache, case .failure(let error) = outcome, !Task.isCancelled else { return outcome }
        guard policy == .cacheIfFreshElseServer else {
            return .failure(
                BaseServerError(
                    code: .cacheMiss, message: "the cached answer cannot be read by the request's mapping",
                    underlyingError: error))
        }
        var fromServer = serverRequest
        fromServer.cachePolicy = .serverOnly
        return await RequestPipeline.run(
            self, fromServer, configuration: configuration, requestId: requestId, broadcast: broadcast
        ).0
    }
}

/// A monitor that hears only exchanges: a recorder's view of the cache-only run.
private struct ExchangesOnly: NetworkEventMonitor {
    let base: any NetworkEventMonitor

    var queue: DispatchQueue { base.queue }
    var runsInline: Bool { base.runsInline }
    var events: NetworkMonitorEvents { [] }
    var exchangeBodyLimit: Int? { base.exchangeBodyLimit }

    func request(_ request: MonitoredRequest, didExchange exchange: MonitoredExchange) {
        base.request(request, didExchange: exchange)
    }
}
