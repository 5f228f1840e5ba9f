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

/// The stage of the cache: it answers from its CacheAdapter as each request's CachePolicy says, makes requests
/// conditional, and stores what HTTP lets it store.
///
/// On the way in it reads the entry for the request (its method, URL and `Vary` headers); an entry the configuration's
/// validators reject counts as none. CachePolicy/cacheOnly answers from it and never goes further; with an entry,
/// `If-None-Match`/`If-Modified-Since` are added. On the way out, a `304` becomes the stored answer (confirmed, so not
/// "from the cache"), and under CachePolicy/serverIfFailReadFromCache a `5xx` or a failure to reach the server (also a
/// token refresh that could not reach it) becomes the stored answer marked as from the cache.
///
/// What is stored is decided by HTTP (RFC 9111): a successful `GET` or `HEAD` whose `Cache-Control` (the response's or
/// the request's) does not say `no-store` and whose `Vary` is not `*`, stored before the response goes back out, so the
/// next request finds it. Only a whole body reaches the stage: a body cut by a dropped connection ends the request in
/// an error and is never stored. A streamed body and a download to a file are not stored. Whether the model reads is
/// not the stage's business: an entry the request cannot read is a miss for the request (see CachePolicy), and the
/// server's next answer replaces it.
///
/// CachePolicy/cacheIfFreshElseServer reads HTTP freshness (CacheFreshness, RFC 9111): a fresh entry answers without
/// going further, a stale one within `stale-while-revalidate` answers and is revalidated in the background through the
/// rest of the chain, and one within `stale-if-error` answers when the server fails. Time comes from
/// NetworkConfiguration/clock.
///
/// It runs before the token stage, so an answer from the cache never waits for a token refresh. It is the stage of
/// NetworkConfiguration/cacheAdapter: setting that adds, replaces or removes it. Without a cache stage, a `cacheOnly`
/// request fails with `cacheMiss` and is never sent.
public struct CacheInterceptor: Interceptor, BuiltInStage {
    /// Where the entries are kept.
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
        // Computed only where a policy reads it: parsing the HTTP dates is not free.
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

    /// Whether the configuration's validators accept `entry` as an answer: one they reject is a miss, never an answer
    /// that fails the request.
    private static func reads(_ entry: CachedResponse, _ store: CacheStore, _ configuration: NetworkConfiguration)
        -> Bool
    {
        let validators = configuration.validators
        guard !validators.isEmpty else { return true }
        let response = entry.serverResponse(for: store.transportRequest, fromCache: true)
        return (try? ResponseValidationInterceptor.validate(response, validators: validators, errorMappers: [])) != nil
    }

    /// The answer of CachePolicy/cacheIfFreshElseServer from `entry` without waiting for the network: the entry when it
    /// is fresh for `request`, or when it is stale within its `stale-while-revalidate` window (then a revalidation
    /// starts in the background); `nil` when the server must be asked.
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

    /// Whether `policy` lets the stale or fresh entry answer when the server fails or cannot be reached: the app's
    /// offline fallback (CachePolicy/serverIfFailReadFromCache) unless a stale entry says `must-revalidate`, and HTTP's
    /// `stale-if-error` for CachePolicy/cacheIfFreshElseServer.
    private static func mayFallBack(_ policy: CachePolicy, _ freshness: CacheFreshness) -> Bool {
        switch policy {
        case .serverIfFailReadFromCache: freshness.allowsFallback
        case .cacheIfFreshElseServer: freshness.allowsStaleIfError
        case .serverOnly, .cacheOnly, .firstCacheThenRefreshFromServer: false
        }
    }

    /// Sends `request` conditionally through the rest of the chain in a Task of its own, after the request itself was
    /// answered from `entry` (`stale-while-revalidate`), and stores what comes back as HTTP allows: the entry refreshed
    /// by a `304`, or a new answer. Nobody waits for it and a failure leaves the entry as it is; cancelling the request
    /// does not cancel it.
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

    /// Adds `If-None-Match` / `If-Modified-Since` from `entry` unless the request sets its own conditions; returns
    /// whether it added any.
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
    /// Whether the error means the server could not be reached: no connection, connection refused or lost, a timeout —
    /// also as the cause of a failed token refresh.
    var meansUnreachable: Bool {
        let unreachable: Set<Code> = [.noInternetConnection, .cannotConnect, .connectionLost, .timeout]
        if unreachable.contains(code) { return true }
        if code == .tokenRefreshFailed, let cause = underlyingError {
            return TransportErrorMapper.map(cause).meansUnreachable
        }
        return false
    }
}

extension InterceptorChain {
    /// Tells the monitors what the cache stage did.
    func report(_ event: CacheEvent) {
        emit { monitor, request in monitor.request(request, didUseCache: event) }
    }

    /// Hands `response`, an answer of the cache, to the monitors that record exchanges, and returns it.
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
