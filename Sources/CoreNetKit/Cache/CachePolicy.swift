//===----------------------------------------------------------------------===//
//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
//
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// How a request uses the cache.
///
/// Only `GET` and `HEAD` requests are ever read from or written to the cache, and only
/// successful (2xx) responses that map to a model are stored.
public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
    /// Never reads the cache; stores a cacheable success. The default.
    case serverOnly
    /// Answers from the cache only, never touching the network; no entry ends in
    /// ``BaseServerError/Code-swift.struct/cacheMiss``.
    case cacheOnly
    /// Delivers the cached model (if any) through `onCacheSuccess` first, then the server's
    /// through `onSuccess`; if the server fails, `onError` follows the cached model.
    case firstCacheThenRefreshFromServer
    /// Asks the server first; when it cannot be reached (no connection, cannot connect,
    /// timeout, 5xx) the cached model is delivered as a success marked as from the cache.
    case serverIfFailReadFromCache
}
