//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``CacheAdapter`` over Foundation's `URLCache`, for apps that already size and place one.
///
/// ```swift
/// NetworkConfiguration.default.cacheAdapter = UrlCacheAdapter(memoryCapacity: 4 << 20, diskCapacity: 20 << 20,
///                                                             directory: cachesURL.appendingPathComponent("api"))
/// ```
///
/// Each ``CacheKey`` is filed under `https://corenetkit.cache/<SHA-256 of the key>`, because FoundationNetworking's
/// `URLCache` keys only by host, port and path (merging queries and methods). ``CachedResponse/storedAt`` and
/// ``CachedResponse/variant`` travel in `userInfo`; entries survive a new `URLCache` over the same directory, and an
/// unreadable one is a miss.
///
/// On Linux, prefer ``DiskCacheAdapter``: FoundationNetworking's `URLCache` scans its whole directory on every disk
/// lookup and store. Calls run in order on the adapter's serial queue, never the caller's thread.
// safe: `urlCache` is thread-safe and used only on `queue`
public final class UrlCacheAdapter: CacheAdapter, @unchecked Sendable {
    /// The `URLCache` that holds the entries.
    public let urlCache: URLCache
    private let queue = DispatchQueue(label: "CoreNetKit.UrlCacheAdapter")
    private static let storedAtKey = "CoreNetKit.storedAt"
    private static let variantKey = "CoreNetKit.variant"

    /// Creates an adapter over a new `URLCache` of these capacities in bytes (`diskCapacity` `0`: memory only), with
    /// its files in `directory` (`nil`: its default location).
    public convenience init(
        memoryCapacity: Int = 4 * 1024 * 1024, diskCapacity: Int = 20 * 1024 * 1024,
        directory: URL? = nil
    ) {
        #if canImport(FoundationNetworking)
        let cache = URLCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, diskPath: directory?.path)
        #else
        let cache = URLCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory)
        #endif
        self.init(urlCache: cache)
    }

    /// Creates an adapter over `urlCache`; give it a cache of its own, as ``removeAll()`` removes other users' entries
    /// too.
    public init(urlCache: URLCache) { self.urlCache = urlCache }

    public func load(_ key: CacheKey) async -> CachedResponse? {
        let request = Self.request(for: key)
        return await queue.run { self.urlCache.cachedResponse(for: request).flatMap(Self.entry(from:)) }
    }

    public func save(_ response: CachedResponse, for key: CacheKey) async {
        let request = Self.request(for: key)
        await queue.run {
            guard let cached = Self.cachedURLResponse(response, for: request) else { return }
            self.urlCache.storeCachedResponse(cached, for: request)
        }
    }

    public func remove(_ key: CacheKey) async {
        let request = Self.request(for: key)
        await queue.run { self.urlCache.removeCachedResponse(for: request) }
    }

    public func removeAll() async { await queue.run { self.urlCache.removeAllCachedResponses() } }

    private static func request(for key: CacheKey) -> URLRequest {
        URLRequest(url: URL(string: "https://corenetkit.cache/\(key.digest)")!)  // safe: a fixed host and a hex path
    }

    private static func cachedURLResponse(_ entry: CachedResponse, for request: URLRequest) -> CachedURLResponse? {
        let fields = Dictionary(entry.headers.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
        guard let url = entry.url ?? request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: entry.statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
        else { return nil }
        var userInfo: [AnyHashable: Any] = [storedAtKey: entry.storedAt.timeIntervalSince1970]
        if let variant = entry.variant { userInfo[variantKey] = variant }
        return CachedURLResponse(response: response, data: entry.body, userInfo: userInfo, storagePolicy: .allowed)
    }

    private static func entry(from cached: CachedURLResponse) -> CachedResponse? {
        guard let response = cached.response as? HTTPURLResponse, (200..<300).contains(response.statusCode) else {
            return nil
        }
        var fields: [(name: String, value: String)] = []
        for case (let name as String, let value as String) in response.allHeaderFields { fields.append((name, value)) }
        fields.sort { $0.name.lowercased() < $1.name.lowercased() }
        // Without its date an entry counts as old (stale, so revalidated), never as just stored.
        let storedAt =
            (cached.userInfo?[storedAtKey] as? Double).map(Date.init(timeIntervalSince1970:)) ?? .distantPast
        return CachedResponse(
            statusCode: response.statusCode, headers: HTTPHeaders(fields), body: cached.data,
            url: response.url, storedAt: storedAt, variant: cached.userInfo?[variantKey] as? String)
    }
}
