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

/// The cache policies, hooked into the pipeline at four points: before the transport (read,
/// answer `cacheOnly`, deliver the cached model, add conditional headers), after it (a 304
/// becomes the cached response; a 5xx the fallback), on a transport error (the fallback), and
/// after a successful mapping (store).
///
/// The hooks run only when ``cache`` is set, which ``executeWithCache(_:events:)`` does for a
/// `GET` or `HEAD` when the configuration has a ``CacheAdapter``. They work on the request as
/// sent — after the preparators — so the key and the `Vary` headers are those on the wire, also
/// when the request is replayed after a token refresh.
extension RequestPipeline {
    /// Runs `serverRequest` under its cache policy, or returns `nil` when the cache plays no
    /// part (no adapter, or a method other than `GET`/`HEAD`, unless the policy is `cacheOnly`).
    func executeWithCache(_ serverRequest: ServerRequest, events: CacheEvents<Model>) async -> Result<Model, any Error>?
    {
        guard cache == nil else { return nil }
        let policy = serverRequest.cachePolicy
        guard let adapter = configuration.cacheAdapter, serverRequest.method.isCacheable else {
            guard policy == .cacheOnly else { return nil }
            let reason =
                configuration.cacheAdapter == nil ? "no cache adapter is configured" : "only GET and HEAD are cached"
            return .failure(BaseServerError(code: .cacheMiss, message: reason))
        }
        let session = CacheSession(adapter: adapter, policy: policy, events: events)
        var pipeline = self
        pipeline.cache = session
        let result = await pipeline.execute(serverRequest)
        if case .success = result, session.servedFromCache { events.servedFromCache() }
        return result
    }

    /// Before the transport. Returns the response when the cache answers instead of the network.
    ///
    /// - Throws: ``BaseServerError`` `cacheMiss` for `cacheOnly` without an entry.
    func cacheBeforeSend(_ request: inout URLRequest) async throws -> ServerResponse? {
        guard let cache, cache.policy != .serverOnly else { return nil }
        let entry = await CacheSession<Model>.lookup(request, in: cache.adapter)
        if cache.policy == .cacheOnly {
            cache.found(entry, conditional: false)
            guard let entry else {
                throw BaseServerError(
                    code: .cacheMiss, message: "nothing is cached for \(CacheKey(request)?.description ?? "-")")
            }
            cache.markServedFromCache()
            return entry.serverResponse(for: request, fromCache: true)
        }
        guard let entry else {
            cache.found(nil, conditional: false)
            return nil
        }
        if cache.policy == .firstCacheThenRefreshFromServer, cache.takeCacheEmission(),
            let model = try? await map(entry.serverResponse(for: request, fromCache: true))
        {
            cache.events.cached(model)
        }
        cache.found(entry, conditional: Self.addConditionalHeaders(from: entry, to: &request))
        return nil
    }

    /// After the transport answered: a `304` to a request this step made conditional becomes the
    /// stored response with the 304's headers; a 5xx under `serverIfFailReadFromCache` becomes
    /// the stored response, marked as from the cache.
    func cacheAfterSend(_ response: ServerResponse) -> ServerResponse {
        guard let cache, let entry = cache.entry else { return response }
        if response.statusCode == 304, cache.isConditional {
            return entry.revalidated(by: response.headers, at: Date())
                .serverResponse(for: response.request, fromCache: false, duration: response.duration)
        }
        if (500..<600).contains(response.statusCode), cache.policy == .serverIfFailReadFromCache {
            cache.markServedFromCache()
            return entry.serverResponse(for: response.request, fromCache: true, duration: response.duration)
        }
        return response
    }

    /// On a transport error: under `serverIfFailReadFromCache`, when the server could not be
    /// reached, the stored response, marked as from the cache.
    func cacheFallback(for error: BaseServerError, request: URLRequest) -> ServerResponse? {
        guard let cache, cache.policy == .serverIfFailReadFromCache, Self.unreachable.contains(error.code),
            let entry = cache.entry
        else { return nil }
        cache.markServedFromCache()
        return entry.serverResponse(for: request, fromCache: true)
    }

    /// After a successful mapping: stores a response that came from the network (or was
    /// revalidated by a 304) when HTTP's rules allow it. Returns once the entry is stored.
    func cacheStore(_ response: ServerResponse) async {
        guard let cache, !response.isFromCache, let entry = CachedResponse(storing: response, at: Date()) else {
            return
        }
        await CacheSession<Model>.store(entry, for: response.request, in: cache.adapter)
    }

    /// The transport errors that mean "the server cannot be reached".
    static var unreachable: Set<BaseServerError.Code> {
        [.noInternetConnection, .cannotConnect, .connectionLost, .timeout]
    }

    /// Adds `If-None-Match` / `If-Modified-Since` from `entry` unless the request sets its own
    /// conditions; returns whether it added any.
    private static func addConditionalHeaders(from entry: CachedResponse, to request: inout URLRequest) -> Bool {
        guard request.value(forHTTPHeaderField: "If-None-Match") == nil,
            request.value(forHTTPHeaderField: "If-Modified-Since") == nil
        else { return false }
        let eTag = entry.headers["ETag"]
        let lastModified = entry.headers["Last-Modified"]
        if let eTag { request.setValue(eTag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        return eTag != nil || lastModified != nil
    }
}
