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
