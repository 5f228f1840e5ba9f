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

/// What a ``CacheAdapter`` files an entry under: the method, the URL as sent (query in the encoder's sorted order) and,
/// for responses with `Vary`, a digest of the request headers it names.
///
/// The key without a variant is looked up first, then that of the request's variant if the `Vary` headers differ. Keys
/// hold only a SHA-256 of header values, so `Vary: Authorization` never writes a token into one.
///
/// ```swift
/// await adapter.remove(CacheKey(method: .get, url: URL(string: "https://api.example.com/me")!))
/// ```
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The request method.
    public let method: HTTPMethod
    /// The request URL without its fragment.
    public let url: String
    /// The SHA-256 of the `Vary`-named request headers, or `nil` for the entry of the URL itself.
    public let variant: String?

    /// Creates the key of `method` and `url`; the fragment is dropped.
    public init(method: HTTPMethod, url: URL, variant: String? = nil) {
        var absolute = url.absoluteString
        if let hash = absolute.firstIndex(of: "#") { absolute = String(absolute[..<hash]) }
        self.init(method: method, urlString: absolute, variant: variant)
    }

    func varying(_ digest: String) -> CacheKey { CacheKey(method: method, urlString: url, variant: digest) }

    private init(method: HTTPMethod, urlString: String, variant: String?) {
        self.method = method
        self.url = urlString
        self.variant = variant
    }

    /// One string naming the entry: `GET https://…/orders?skip=0`, plus ` vary=<digest>`.
    public var rawValue: String {
        variant.map { "\(method.rawValue) \(url) vary=\($0)" } ?? "\(method.rawValue) \(url)"
    }

    /// The SHA-256 of ``rawValue`` in hex: a file name safe on every file system.
    public var digest: String { SHA256.hex(rawValue) }

    /// ``rawValue`` with secrets in the URL's query redacted, for logs.
    public var description: String {
        let redacted = LogRedactor.redact(url: URL(string: url))
        return variant.map { "\(method.rawValue) \(redacted) vary=\($0.prefix(12))" }
            ?? "\(method.rawValue) \(redacted)"
    }
}

extension HTTPMethod {
    var isCacheable: Bool { self == .get || self == .head }
}
