//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Stores responses for the cache policies: a key-value store of ``CachedResponse`` by ``CacheKey``.
///
/// Set one on ``NetworkConfiguration/cacheAdapter``; without one nothing is cached. CoreNetKit ships
/// ``DiskCacheAdapter`` and ``UrlCacheAdapter``.
///
/// The pipeline decides what is stored (see ``CachePolicy``); an adapter keeps what it is given. Its methods never
/// throw: an unreadable entry is `nil`, a miss, and a failed write is dropped, so a cache failure never fails a
/// request. Calls may come from any thread, concurrently.
///
/// ```swift
/// let cache = DiskCacheAdapter(directory: cachesURL.appendingPathComponent("api"))
/// NetworkConfiguration.default.cacheAdapter = cache
/// // on logout:
/// await cache.removeAll()
/// ```
public protocol CacheAdapter: Sendable {
    /// The entry stored under `key`, or `nil` when there is none or it cannot be read.
    func load(_ key: CacheKey) async -> CachedResponse?

    /// Stores `response` under `key`, replacing what was there. Returns once a following ``load(_:)`` sees it.
    func save(_ response: CachedResponse, for key: CacheKey) async

    /// Removes the entry stored under `key`, if any; without a variant, every variant of that URL becomes unreachable.
    func remove(_ key: CacheKey) async

    /// Removes every entry, in memory and on disk, e.g. on logout (``AccessSafeRequestManager/onSessionExpired(_:)``).
    /// The library never calls it.
    func removeAll() async
}

/// How a request uses the ``NetworkConfiguration/cacheAdapter``.
///
/// Only `GET` and `HEAD` are cached, and only 2xx responses that map to a model and lack `Cache-Control: no-store`.
/// Only ``cacheIfFreshElseServer`` reads freshness. Without a cache adapter every policy but ``cacheOnly`` acts as
/// ``serverOnly``. See <doc:CachingResponses> for what each policy delivers.
public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
    /// Never reads the cache; stores a cacheable success. The default.
    case serverOnly
    /// Answers from the cache only, never touching the network; no entry ends in
    /// ``BaseServerError/Code-swift.struct/cacheMiss``. A hit is a success with ``RequestContext/isFromCache`` `true`.
    case cacheOnly
    /// Delivers the cached model (if any) through `onCacheSuccess`, then the server's through `onSuccess` (or
    /// `onError`). The request is conditional when the entry allows; a `304` delivers the cached model through
    /// `onSuccess`.
    case firstCacheThenRefreshFromServer
    /// Asks the server first (conditionally); when it is unreachable or answers 5xx, the cached model is delivered as a
    /// success with ``RequestContext/isFromCache`` `true` (e.g. for an "offline" banner); without an entry, the error.
    case serverIfFailReadFromCache
    /// Answers from an entry fresh by HTTP's rules (RFC 9111) without the network, with ``RequestContext/isFromCache``
    /// `true`; otherwise asks the server conditionally, and a `304` delivers the entry.
    ///
    /// A stale entry within `stale-while-revalidate` answers at once and is revalidated in the background; one within
    /// `stale-if-error` answers when the server fails or is unreachable. `no-cache` on the response, or
    /// `no-cache`/`max-age=0` on the request, always asks the server; `must-revalidate` never serves a stale entry.
    case cacheIfFreshElseServer
}
