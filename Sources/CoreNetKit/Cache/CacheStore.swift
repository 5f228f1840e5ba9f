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

/// Where one request's answer is cached: the adapter, the key of its method and URL, and the request headers its `Vary`
/// variant is computed from.
struct CacheStore: Sendable {
    let adapter: any CacheAdapter
    let key: CacheKey
    let method: HTTPMethod
    let url: URL
    let requestHeaders: [String: String]

    init(adapter: any CacheAdapter, method: HTTPMethod, url: URL, requestHeaders: [String: String]) {
        self.adapter = adapter
        self.key = CacheKey(method: method, url: url)
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
    }

    /// A request standing for the cached answer's origin, for a response read from the cache without sending anything.
    var transportRequest: TransportRequest {
        TransportRequest(method: method, url: url, headers: HTTPHeaders(requestHeaders))
    }

    /// The entry for the request: the one stored for its method and URL, or, when that entry's `Vary` headers differ in
    /// the request, the one stored for the request's variant.
    func lookup() async -> CachedResponse? {
        guard let entry = await adapter.load(key) else { return nil }
        let names = entry.varyNames
        guard !names.isEmpty else { return entry.variant == nil ? entry : nil }
        guard let variant = CachedResponse.variant(of: requestHeaders, names: names) else { return nil }
        if entry.variant == variant { return entry }
        guard let other = await adapter.load(key.varying(variant)), other.variant == variant else { return nil }
        return other
    }

    /// Stores `response` when HTTP's rules allow it and it came from the network (or was confirmed by a `304`): under
    /// the method and URL (which also records the `Vary` names for the next lookup) and, when it varies, under its
    /// variant too.
    func save(_ response: ServerResponse, at date: Date) async {
        guard !response.isFromCache,
            let entry = CachedResponse(storing: response, method: method, requestHeaders: requestHeaders, at: date)
        else { return }
        if let variant = entry.variant { await adapter.save(entry, for: key.varying(variant)) }
        await adapter.save(entry, for: key)
    }
}
