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

/// Everything a request needs besides its own description: transport, preparators,
/// validators, error mappers, decoding, logging, the callback queue and the cache.
///
/// One global ``default`` serves every request that does not bring its own; set it once at
/// start-up. Any request can use another (``BaseServerRequest/init(configuration:)``).
///
/// ```swift
/// NetworkConfiguration.default.errorMappers = [DecodableErrorMapper(APIError.self)]
/// NetworkConfiguration.default.logger = PrintNetworkLogger()
/// ```
public struct NetworkConfiguration: Sendable {
    /// Sends requests; ``URLSessionTransport`` by default.
    public var transport: any Transport
    /// Prepare every request, in order; by default ``DefaultHeadersPreparator``.
    public var preparators: [any RequestPreparator]
    /// Decide success, in order; by default ``StatusCodeValidator`` (2xx).
    public var validators: [any ResponseValidator]
    /// Turn failed responses into the app's errors; the first match wins.
    public var errorMappers: [any ErrorMapperAdapter]
    /// Decodes models in the default mapping.
    public var decoder: JSONDecoder
    /// Encodes `.json` parameters.
    public var encoder: JSONEncoder
    /// Receives request and response log entries; `nil` logs nothing.
    public var logger: (any NetworkLogger)?
    /// The queue context handlers run on; `.main` by default.
    ///
    /// That is the main *queue*: on Linux under an async `main` another thread drains it, and
    /// `Thread.isMainThread` is `false` in a handler. A tool or server whose main queue nothing
    /// drains should set a queue of its own.
    public var callbackQueue: DispatchQueue
    /// The deadline of requests that set none, in seconds: it bounds the whole exchange, from
    /// the first byte sent to the last byte of the body read, on every transport (slow headers,
    /// a stalled or trickled body, a lying `Content-Length`, endless `1xx` responses), and ends
    /// it in ``BaseServerError/Code-swift.struct/timeout`` with the connection closed. 60 by
    /// default; `.infinity` (here or on ``ServerRequest/timeout``) sets no total deadline, for a
    /// long stream read under ``idleTimeout``.
    public var timeout: TimeInterval
    /// The longest silence allowed between two pieces of a response (its head, then each chunk
    /// of its body), in seconds; `nil` (the default) sets none, so only ``timeout`` applies. Set
    /// it with `timeout: .infinity` to read a long stream that must never stall.
    public var idleTimeout: TimeInterval?
    /// The most bytes of a response body collected into memory, counted after the transport
    /// decompressed them: a larger body ends in
    /// ``BaseServerError/Code-swift.struct/responseTooLarge`` as soon as it passes the limit,
    /// with the connection closed. 64 MiB by default.
    public var maximumResponseBodySize: Int
    /// The most bytes a download to a file (``ServerRequest/downloadDestination``) may have;
    /// `nil` (the default) sets no limit. Past it, ``BaseServerError/Code-swift.struct/responseTooLarge``.
    public var maximumDownloadSize: Int64?
    /// Where requests in flight are registered.
    public var taskPool: TaskPool
    /// Stores responses for the ``CachePolicy`` of each request; `nil` (the default) caches
    /// nothing, and the pipeline then skips every cache step. See ``DiskCacheAdapter`` and
    /// ``UrlCacheAdapter``.
    public var cacheAdapter: (any CacheAdapter)?
    /// Authorizes requests that require it (``ServerRequest/requiresAuthorization``): adds the
    /// access token, refreshes it once for any number of rejections and replays; `nil` (the
    /// default) sends requests as they are.
    public var accessManager: AccessSafeRequestManager?
    /// Observe every request of this configuration (metrics, tracing, debugging); empty by
    /// default, and then a request pays nothing for monitoring. See ``NetworkEventMonitor``.
    public var monitors: [any NetworkEventMonitor]
    /// When and how often failed requests are sent again; `nil` (the default) never retries.
    /// A request can bring its own (``ServerRequest/retryPolicy``).
    public var retryPolicy: RetryPolicy?
    /// The stages every request goes through, from the outside in, before the transport:
    /// ``standardInterceptors`` and yours.
    ///
    /// Append your own ``Interceptor`` to run it right before the transport (after the token is
    /// added, once per attempt), or place it relative to a standard stage with
    /// `interceptors.insert(_:before:)` (`before: CacheInterceptor.self`). The settings are the
    /// one source of truth for what the standard stages do (``retryPolicy``, ``cacheAdapter``,
    /// ``accessManager``, ``preparators``, ``validators``): the list always holds each standard
    /// stage exactly once — one removed is put back in its place, a second copy is dropped — so
    /// a feature is turned off by its setting, never by its stage's absence.
    public var interceptors: [any Interceptor] {
        didSet { interceptors = Self.withStandardStages(interceptors) }
    }
    /// Where the library reads the time and waits: cache dates, back-off, stub latency,
    /// progress throttling. ``SystemClock`` by default; tests use a ``ManualClock``.
    public var clock: any NetworkClock
    /// Freshness for cached responses without `max-age` or `Expires`, from their
    /// `Last-Modified` (used by ``CachePolicy/cacheIfFreshElseServer``); `nil` (the default)
    /// treats such a response as stale, so it is always revalidated.
    public var heuristicFreshness: HeuristicFreshness?
    /// Where cookies are kept; `nil` (the default) keeps none and sends none. With a storage,
    /// every request gets the `Cookie` header of the stored cookies that match its URL (RFC 6265:
    /// domain, path, `Secure`, expiry by ``clock``) and every response's `Set-Cookie` fields are
    /// stored, the same on every transport. RFC 6265 does not isolate ports: a cookie set by a
    /// host is sent to every port of that host. See <doc:Cookies>.
    public var cookieStorage: HTTPCookieStorage?

    /// The standard stages, from the outside in: validation and error mapping, retry, the
    /// preparators, the cache, the access token.
    public static var standardInterceptors: [any Interceptor] {
        [
            ResponseValidationInterceptor(), RetryInterceptor(), PreparatorInterceptor(), CacheInterceptor(),
            AccessTokenInterceptor(),
        ]
    }

    /// Creates a configuration; every argument has the default described on its property.
    public init(
        transport: (any Transport)? = nil,
        preparators: [any RequestPreparator] = [DefaultHeadersPreparator()],
        validators: [any ResponseValidator] = [StatusCodeValidator()],
        errorMappers: [any ErrorMapperAdapter] = [],
        decoder: JSONDecoder = JSONDecoder(),
        encoder: JSONEncoder = JSONEncoder(),
        logger: (any NetworkLogger)? = nil,
        callbackQueue: DispatchQueue = .main,
        timeout: TimeInterval = 60,
        idleTimeout: TimeInterval? = nil,
        maximumResponseBodySize: Int = 64 << 20,
        maximumDownloadSize: Int64? = nil,
        taskPool: TaskPool = .shared,
        cacheAdapter: (any CacheAdapter)? = nil,
        accessManager: AccessSafeRequestManager? = nil,
        monitors: [any NetworkEventMonitor] = [],
        retryPolicy: RetryPolicy? = nil,
        interceptors: [any Interceptor] = NetworkConfiguration.standardInterceptors,
        clock: any NetworkClock = SystemClock(),
        heuristicFreshness: HeuristicFreshness? = nil,
        cookieStorage: HTTPCookieStorage? = nil
    ) {
        self.transport = transport ?? SharedTransport.urlSession
        self.preparators = preparators
        self.validators = validators
        self.errorMappers = errorMappers
        self.decoder = decoder
        self.encoder = encoder
        self.logger = logger
        self.callbackQueue = callbackQueue
        self.timeout = timeout
        self.idleTimeout = idleTimeout
        self.maximumResponseBodySize = maximumResponseBodySize
        self.maximumDownloadSize = maximumDownloadSize
        self.taskPool = taskPool
        self.cacheAdapter = cacheAdapter
        self.accessManager = accessManager
        self.monitors = monitors
        self.retryPolicy = retryPolicy
        self.interceptors = Self.withStandardStages(interceptors)
        self.clock = clock
        self.heuristicFreshness = heuristicFreshness
        self.cookieStorage = cookieStorage
    }

    private static let storage = Locked(NetworkConfiguration())

    /// The configuration of every request that does not bring its own. Reading and writing are
    /// thread-safe; a change affects requests performed afterwards.
    public static var `default`: NetworkConfiguration {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// The transport shared by configurations that name none.
enum SharedTransport {
    static let urlSession = URLSessionTransport()
}
