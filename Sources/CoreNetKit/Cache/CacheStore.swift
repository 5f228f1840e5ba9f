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

/// Where one request's answer is cached: the adapter, its method-and-URL key, and the headers for its `Vary` variant.
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

    /// A request standing for the cached answer's origin, as nothing was sent.
    var transportRequest: TransportRequest {
        TransportRequest(method: method, url: url, headers: HTTPHeaders(requestHeaders))
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
            let entry = CachedResponse(storing: response, method: method, requestHeaders: requestHeaders, at: date)
        else { return }
        if let variant = entry.variant { await adapter.save(entry, for: key.varying(variant)) }
        await adapter.save(entry, for: key)
    }
}
