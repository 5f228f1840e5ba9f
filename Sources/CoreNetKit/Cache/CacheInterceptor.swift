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

/// The stage of the cache: it answers from the configuration's CacheAdapter as each
/// request's CachePolicy says, makes requests conditional, and marks answers for storing.
///
/// On the way in it reads the entry for the request (its method, URL and `Vary` headers):
/// CachePolicy/cacheOnly answers from it and never goes further;
/// CachePolicy/firstCacheThenRefreshFromServer hands it to the contexts' `onCacheSuccess`
/// at once and goes on; with an entry, `If-None-Match`/`If-Modified-Since` are added. On the
/// way out, a `304` becomes the stored answer (confirmed, so not "from the cache"), and under
/// CachePolicy/serverIfFailReadFromCache a `5xx` or a failure to reach the server (also a
/// token refresh that could not reach it) becomes the stored answer marked as from the cache. A
/// successful answer is stored once the request's mapping has read it.
///
/// CachePolicy/cacheIfFreshElseServer reads HTTP freshness (CacheFreshness, RFC 9111): a
/// fresh entry answers without going further, a stale one within `stale-while-revalidate`
/// answers and is revalidated in the background, and one within `stale-if-error` answers when
/// the server fails. Time comes from NetworkConfiguration/clock.
///
/// It runs before the token stage, so an answer from the cache never waits for a token refresh.
/// Only `GET` and `HEAD` are cached; without an adapter the stage only passes requests on
/// (and `cacheOnly` fails with `cacheMiss`).
public struct CacheInterceptor: Interceptor {
    /// Creates the stage; it reads NetworkConfiguration/cacheAdapter of the request's
    /// configuration.
    public init() {}

    public func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        let configuration = next.configuration
        let policy = request.cachePolicy
        guard let adapter = configuration.cacheAdapter, request.method.isCacheable else {
            guard policy == .cacheOnly else { return try await next.proceed(request) }
            let reason =
                configuration.cacheAdapter == nil
                ? "no cache adapter is configured" : "only GET and HEAD are cached"
            throw BaseServerError(code: .cacheMiss, message: reason)
        }
        let store = CacheStore(
            adapter: adapter, method: request.method,
            url: try RequestEncoder.url(of: request, encoder: configuration.encoder),
            requestHeaders: request.headers)
        if policy == .serverOnly {
            var response = try await next.proceed(request)
            // A streamed body is not in the response: there is nothing to store.
            if request.responseBodyStream == nil { Self.store(&response, in: store, clock: configuration.clock) }
            return response
        }
        let entry = await store.lookup()
        let clock = configuration.clock
        // Computed only where a policy reads it: parsing the HTTP dates is not free.
        let heuristic = configuration.heuristicFreshness
        let freshness: @Sendable (CachedResponse) -> CacheFreshness = {
            CacheFreshness($0, now: clock.currentDate, heuristic: heuristic)
        }
        if policy == .cacheIfFreshElseServer {
            if let entry, let answer = answer(entry, freshness(entry), request, store, next) {
                next.report(.hit)
                return answer
            }
            next.report(.miss)
        } else {
            next.report(entry == nil ? .miss : .hit)
        }
        if policy == .cacheOnly {
            guard let entry else {
                throw BaseServerError(code: .cacheMiss, message: "nothing is cached for \(store.key.description)")
            }
            return entry.serverResponse(for: store.transportRequest, fromCache: true)
        }
        if let entry, policy == .firstCacheThenRefreshFromServer, next.takesEarlyAnswer {
            await next.answerEarly(entry.serverResponse(for: store.transportRequest, fromCache: true))
        }
        var sent = request
        let conditional = entry.map { Self.addConditionalHeaders(from: $0, to: &sent.headers) } ?? false
        let response: ServerResponse
        do {
            response = try await next.proceed(sent)
        } catch let error as BaseServerError where error.meansUnreachable {
            guard let entry, Self.mayFallBack(policy, freshness(entry)) else { throw error }
            next.report(.fallback)
            return entry.serverResponse(for: store.transportRequest, fromCache: true)
        }
        if let entry, response.statusCode == 304, conditional {
            var revalidated = entry.revalidated(by: response.headers, at: clock.currentDate)
                .serverResponse(for: response.transportRequest, fromCache: false, duration: response.duration)
            Self.store(&revalidated, in: store, clock: clock)
            next.report(.revalidated)
            return revalidated
        }
        if let entry, (500..<600).contains(response.statusCode), Self.mayFallBack(policy, freshness(entry)) {
            next.report(.fallback)
            return entry.serverResponse(for: response.transportRequest, fromCache: true, duration: response.duration)
        }
        var stored = response
        Self.store(&stored, in: store, clock: clock)
        return stored
    }

    /// Has `response` stored in `store` once the request's mapping read it (the pipeline runs
    /// ServerResponse.whenMapped after a successful mapping).
    private static func store(_ response: inout ServerResponse, in store: CacheStore, clock: any NetworkClock) {
        response.whenMapped = { mapped in await store.save(mapped, at: clock.currentDate) }
    }

    /// The answer of CachePolicy/cacheIfFreshElseServer from `entry` without waiting for the
    /// network: the entry when it is fresh for `request`, or when it is stale within its
    /// `stale-while-revalidate` window (then a revalidation starts in the background); `nil`
    /// when the server must be asked.
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

    /// Whether `policy` lets the stale or fresh entry answer when the server fails or cannot be
    /// reached: the app's offline fallback (CachePolicy/serverIfFailReadFromCache) unless a
    /// stale entry says `must-revalidate`, and HTTP's `stale-if-error` for
    /// CachePolicy/cacheIfFreshElseServer.
    private static func mayFallBack(_ policy: CachePolicy, _ freshness: CacheFreshness) -> Bool {
        switch policy {
        case .serverIfFailReadFromCache: freshness.allowsFallback
        case .cacheIfFreshElseServer: freshness.allowsStaleIfError
        case .serverOnly, .cacheOnly, .firstCacheThenRefreshFromServer: false
        }
    }

    /// Sends `request` conditionally through the rest of the chain in a Task of its own, after the
    /// request itself was answered from `entry` (`stale-while-revalidate`), and stores what comes
    /// back: the entry refreshed by a `304`, or a `2xx` the request's mapping reads. Nobody waits
    /// for it and a failure leaves the entry as it is; cancelling the request does not cancel it.
    private static func revalidateInBackground(
        _ entry: CachedResponse, _ request: ServerRequest, _ store: CacheStore, _ next: InterceptorChain
    ) {
        let fork = next.fork()
        var sent = request
        let conditional = Self.addConditionalHeaders(from: entry, to: &sent.headers)
        Task {
            guard let response = try? await fork.proceed(sent) else { return }
            let clock = fork.clock
            if response.statusCode == 304, conditional {
                let revalidated = entry.revalidated(by: response.headers, at: clock.currentDate)
                    .serverResponse(for: response.transportRequest, fromCache: false)
                await store.save(revalidated, at: clock.currentDate)
            } else if response.isSuccessStatus, await fork.mapsModel(from: response) {
                await store.save(response, at: clock.currentDate)
            }
        }
    }

    /// Adds `If-None-Match` / `If-Modified-Since` from `entry` unless the request sets its own
    /// conditions; returns whether it added any.
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
    /// Whether the error means the server could not be reached: no connection, connection
    /// refused or lost, a timeout — also as the cause of a failed token refresh.
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
}
