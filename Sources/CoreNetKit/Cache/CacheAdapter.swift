//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Stores responses for the cache policies: a key-value store of ``CachedResponse`` by ``CacheKey``.
///
/// Set one on ``NetworkConfiguration/cacheAdapter``; without one nothing is cached and the pipeline skips every cache
/// step. CoreNetKit ships ``DiskCacheAdapter`` (its own memory and disk store, the same on every platform) and
/// ``UrlCacheAdapter`` (over `URLCache`).
///
/// The pipeline decides what is stored (HTTP's rules, see ``CachePolicy``); an adapter only keeps what it is given. Its
/// methods never throw: a store that cannot read an entry (missing, unreadable, corrupt) answers `nil`, a miss, and a
/// failed write is dropped — a cache failure never fails a request. Calls may come from any thread, concurrently.
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

    /// Removes the entry stored under `key`, if any. Removing the key without a variant makes every variant of that URL
    /// unreachable.
    func remove(_ key: CacheKey) async

    /// Removes every entry, in memory and on disk: what an app calls on logout, for example from
    /// ``AccessSafeRequestManager/onSessionExpired(_:)``. The library never calls it by itself.
    func removeAll() async
}
