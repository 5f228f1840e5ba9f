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

/// A ``CacheAdapter`` over Foundation's `URLCache` (memory and disk), for apps that already size and place a
/// `URLCache`.
///
/// ```swift
/// NetworkConfiguration.default.cacheAdapter = UrlCacheAdapter(memoryCapacity: 4 << 20, diskCapacity: 20 << 20,
///                                                             directory: cachesURL.appendingPathComponent("api"))
/// ```
///
/// `URLCache` files entries under a request; this adapter files each ``CacheKey`` under a request for
/// `https://corenetkit.cache/<SHA-256 of the key>`, because FoundationNetworking's `URLCache` (Linux) keys only by
/// host, port and path — it would give `/orders?skip=0` and `/orders?skip=20`, or `GET` and `HEAD`, one entry. The
/// status, headers, body and CoreNetKit's bookkeeping (``CachedResponse/storedAt``, ``CachedResponse/variant``) travel
/// in the `CachedURLResponse` and its `userInfo`; they survive a new `URLCache` over the same directory, and an
/// unreadable file is a miss.
///
/// On Linux, prefer ``DiskCacheAdapter``: FoundationNetworking's `URLCache` lists and inspects its whole directory on
/// every disk lookup and every store, so both grow with the number of entries (measured with 1,000 entries of 2 KB: ~17
/// ms per miss, ~85 ms per store on average). Calls run one at a time on the adapter's serial queue, never on the
/// caller's thread.
// safe: `urlCache` is thread-safe and used only on `queue`
public final class UrlCacheAdapter: CacheAdapter, @unchecked Sendable {
    /// The cache entries are stored in.
    public let urlCache: URLCache
    private let queue = DispatchQueue(label: "CoreNetKit.UrlCacheAdapter")
    private static let storedAtKey = "CoreNetKit.storedAt"
    private static let variantKey = "CoreNetKit.variant"

    /// Creates an adapter over a new `URLCache`.
    ///
    /// - Parameters:
    ///   - memoryCapacity: bytes kept in memory, 4 MB by default.
    ///   - diskCapacity: bytes kept on disk, 20 MB by default; `0` keeps entries in memory only.
    ///   - directory: where `URLCache` keeps its files; `nil` uses its default location.
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

    /// Creates an adapter over `urlCache`. Give it a cache of its own: entries of other users of the same `URLCache`
    /// are not CoreNetKit's, and ``removeAll()`` removes theirs too.
    public init(urlCache: URLCache) {
        self.urlCache = urlCache
    }

    public func load(_ key: CacheKey) async -> CachedResponse? {
        let request = Self.request(for: key)
        return await run { adapter in
            adapter.urlCache.cachedResponse(for: request).flatMap(Self.entry(from:))
        }
    }

    public func save(_ response: CachedResponse, for key: CacheKey) async {
        let request = Self.request(for: key)
        guard let cached = Self.cachedURLResponse(response, for: request) else { return }
        await run { $0.urlCache.storeCachedResponse(cached.value, for: request) }
    }

    public func remove(_ key: CacheKey) async {
        let request = Self.request(for: key)
        await run { $0.urlCache.removeCachedResponse(for: request) }
    }

    public func removeAll() async {
        await run { $0.urlCache.removeAllCachedResponses() }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable (UrlCacheAdapter) -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work(self)) }
        }
    }

    // MARK: Mapping

    /// The request `key` is filed under: one path per key, so nothing but the key tells entries apart.
    private static func request(for key: CacheKey) -> URLRequest {
        URLRequest(url: URL(string: "https://corenetkit.cache/\(key.digest)")!)  // safe: a fixed host and a hex path
    }

    private static func cachedURLResponse(_ entry: CachedResponse, for request: URLRequest) -> Unchecked<
        CachedURLResponse
    >? {
        var fields: [String: String] = [:]
        for (name, value) in entry.headers {
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        guard let url = entry.url ?? request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: entry.statusCode, httpVersion: "HTTP/1.1",
                headerFields: fields)
        else { return nil }
        var userInfo: [AnyHashable: Any] = [storedAtKey: entry.storedAt.timeIntervalSince1970]
        if let variant = entry.variant { userInfo[variantKey] = variant }
        return Unchecked(
            CachedURLResponse(response: response, data: entry.body, userInfo: userInfo, storagePolicy: .allowed))
    }

    private static func entry(from cached: CachedURLResponse) -> CachedResponse? {
        guard let response = cached.response as? HTTPURLResponse, (200..<300).contains(response.statusCode) else {
            return nil
        }
        var fields: [(name: String, value: String)] = []
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields.append((name, value)) }
        }
        fields.sort { $0.name.lowercased() < $1.name.lowercased() }
        // Without its date an entry's age is unknown: it counts as old (stale, so revalidated), never as just stored.
        let storedAt =
            (cached.userInfo?[storedAtKey] as? Double).map(Date.init(timeIntervalSince1970:)) ?? .distantPast
        return CachedResponse(
            statusCode: response.statusCode, headers: HTTPHeaders(fields), body: cached.data,
            url: response.url, storedAt: storedAt, variant: cached.userInfo?[variantKey] as? String)
    }
}

/// Carries a value that is not `Sendable` to the adapter's queue, where it is used once.
// safe: created, handed over and never touched by the sender again
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
