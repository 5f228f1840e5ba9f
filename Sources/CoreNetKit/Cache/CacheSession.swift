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

/// Where the cache step reports to: the contexts of the request.
struct CacheEvents<Model: Sendable>: Sendable {
    /// Receives the model read from the cache before the server answers
    /// (``CachePolicy/firstCacheThenRefreshFromServer``); called at most once.
    var cached: @Sendable (Model) -> Void = { _ in }
    /// Called before the terminal success when that success was read from the cache instead of
    /// the server (``CachePolicy/cacheOnly``, or the fallback of
    /// ``CachePolicy/serverIfFailReadFromCache``).
    var servedFromCache: @Sendable () -> Void = {}
}

/// The cache work of one execution of a request: the entry read for it, whether the request was
/// made conditional, and whether the answer came from the cache.
final class CacheSession<Model: Sendable>: Sendable {
    private struct State {
        var entry: CachedResponse?
        var conditional = false
        var emittedCache = false
        var servedFromCache = false
    }

    let adapter: any CacheAdapter
    let policy: CachePolicy
    let events: CacheEvents<Model>
    private let state = Locked(State())

    init(adapter: any CacheAdapter, policy: CachePolicy, events: CacheEvents<Model>) {
        self.adapter = adapter
        self.policy = policy
        self.events = events
    }

    /// The entry the last lookup found, for a 304 or a fallback.
    var entry: CachedResponse? { state.withLock { $0.entry } }
    /// Whether the last request sent carried conditional headers added from ``entry``.
    var isConditional: Bool { state.withLock { $0.conditional } }
    /// Whether the last response handed to the pipeline was read from the cache.
    var servedFromCache: Bool { state.withLock { $0.servedFromCache } }

    /// Records the lookup for the request about to be sent.
    func found(_ entry: CachedResponse?, conditional: Bool) {
        state.withLock { state in
            state.entry = entry
            state.conditional = conditional
            state.servedFromCache = false
        }
    }

    /// Marks that the response handed on was read from the cache.
    func markServedFromCache() {
        state.withLock { $0.servedFromCache = true }
    }

    /// `true` the first time only: the cached model is delivered once, also across replays.
    func takeCacheEmission() -> Bool {
        state.withLock { state in
            defer { state.emittedCache = true }
            return !state.emittedCache
        }
    }

    // MARK: Keys and Vary

    /// The entry for `request`: the one stored for its method and URL, or, when that entry's
    /// `Vary` headers differ in `request`, the one stored for `request`'s variant.
    static func lookup(_ request: URLRequest, in adapter: any CacheAdapter) async -> CachedResponse? {
        guard let key = CacheKey(request), let entry = await adapter.load(key) else { return nil }
        let names = entry.varyNames
        guard !names.isEmpty else { return entry.variant == nil ? entry : nil }
        guard let variant = CachedResponse.variant(of: request, names: names) else { return nil }
        if entry.variant == variant { return entry }
        guard let other = await adapter.load(key.varying(variant)), other.variant == variant else { return nil }
        return other
    }

    /// Stores `entry`, the answer to `request`: under its method and URL (which also records
    /// the `Vary` names for the next lookup) and, when it varies, under its variant too.
    static func store(_ entry: CachedResponse, for request: URLRequest, in adapter: any CacheAdapter) async {
        guard let key = CacheKey(request) else { return }
        if let variant = entry.variant { await adapter.save(entry, for: key.varying(variant)) }
        await adapter.save(entry, for: key)
    }
}
