//===----------------------------------------------------------------------===//
//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
//
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

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
