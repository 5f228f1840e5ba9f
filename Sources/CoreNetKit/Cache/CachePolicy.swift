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
/// Only `GET` and `HEAD` requests are ever read from or written to the cache, and only successful (2xx) responses that
/// map to a model are stored — never errors, never a response with `Cache-Control: no-store`. Only
/// ``cacheIfFreshElseServer`` skips the network for a fresh entry; the other policies keep their behaviour whatever the
/// entry's freshness. Without a cache adapter every policy but ``cacheOnly`` acts as ``serverOnly``. See
/// <doc:CachingResponses> for the table of what each policy delivers.
public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
    /// Never reads the cache; stores a cacheable success. The default.
    case serverOnly
    /// Answers from the cache only, never touching the network; no entry ends in
    /// ``BaseServerError/Code-swift.struct/cacheMiss``. A hit is a success with ``RequestContext/isFromCache`` `true`.
    case cacheOnly
    /// Delivers the cached model (if any) through `onCacheSuccess` first, then the server's through `onSuccess`; if the
    /// server fails, `onError` follows the cached model. The request is conditional (`If-None-Match` /
    /// `If-Modified-Since`) when the entry allows; a `304 Not Modified` delivers the cached model through `onSuccess`.
    case firstCacheThenRefreshFromServer
    /// Asks the server first (conditionally, as above); when it cannot be reached (no connection, cannot connect,
    /// connection lost, timeout, 5xx) the cached model is delivered as a success with ``RequestContext/isFromCache``
    /// `true`, so a screen can show an "offline" banner. Without an entry the error is delivered.
    case serverIfFailReadFromCache
    /// Answers from a fresh entry without any network call, as HTTP's freshness rules say (`Cache-Control: max-age`,
    /// `Expires`, `Date`, `Age`; RFC 9111); otherwise asks the server like ``serverOnly`` but conditionally, and a
    /// `304` delivers the entry. An answer from the entry is a success with ``RequestContext/isFromCache`` `true`.
    ///
    /// A stale entry whose response allows `stale-while-revalidate` answers at once and is revalidated in the
    /// background, so the next request gets the server's answer; one that allows `stale-if-error` answers when the
    /// server fails (`5xx`) or cannot be reached within that window. `no-cache` on the response, and `Cache-Control:
    /// no-cache` or `max-age=0` on the request, always ask the server; `must-revalidate` never serves a stale entry.
    case cacheIfFreshElseServer
}
