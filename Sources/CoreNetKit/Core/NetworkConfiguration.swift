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
    /// The settings, shared by copies until one of them changes a setting (copy-on-write): a
    /// request copies its configuration several times on its way, and a copy is then one
    /// reference instead of some 440 bytes with a retain for each of their references.
    private var storage: Storage

    /// The storage, made unique first, for a setter.
    private var mutableStorage: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    /// Sends requests; ``URLSessionTransport`` by default.
    public var transport: any Transport {
        get { storage.transport }
        set { mutableStorage.transport = newValue }
    }

    /// Prepare every request, in order; by default ``DefaultHeadersPreparator``.
    public var preparators: [any RequestPreparator] {
        get { storage.preparators }
        set { mutableStorage.preparators = newValue }
    }
    /// Decide success, in order; by default ``StatusCodeValidator`` (2xx).
    public var validators: [any ResponseValidator] {
        get { storage.validators }
        set { mutableStorage.validators = newValue }
    }
    /// Turn failed responses into the app's errors; the first match wins.
    public var errorMappers: [any ErrorMapperAdapter] {
        get { storage.errorMappers }
        set { mutableStorage.errorMappers = newValue }
    }
    /// Decodes models in the default mapping.
    public var decoder: JSONDecoder {
        get { storage.decoder }
        set { mutableStorage.decoder = newValue }
    }
    /// Encodes `.json` parameters.
    public var encoder: JSONEncoder {
        get { storage.encoder }
        set { mutableStorage.encoder = newValue }
    }
    /// Receives request and response log entries; `nil` logs nothing.
    public var logger: (any NetworkLogger)? {
        get { storage.logger }
        set { mutableStorage.logger = newValue }
    }
    /// The queue context handlers run on; `.main` by default.
    ///
    /// That is the main *queue*: on Linux under an async `main` another thread drains it, and
    /// `Thread.isMainThread` is `false` in a handler. A tool or server whose main queue nothing
    /// drains should set a queue of its own.
    public var callbackQueue: DispatchQueue {
        get { storage.callbackQueue }
        set { mutableStorage.callbackQueue = newValue }
    }
    /// The deadline of requests that set none, in seconds: it bounds the whole exchange, from
    /// the first byte sent to the last byte of the body read, on every transport (slow headers,
    /// a stalled or trickled body, a lying `Content-Length`, endless `1xx` responses), and ends
    /// it in ``BaseServerError/Code-swift.struct/timeout`` with the connection closed. 60 by
    /// default; `.infinity` (here or on ``ServerRequest/timeout``) sets no total deadline, for a
    /// long stream read under ``idleTimeout``.
    public var timeout: TimeInterval {
        get { storage.timeout }
        set { mutableStorage.timeout = newValue }
    }
    /// The longest silence allowed between two pieces of a response (its head, then each chunk
    /// of its body), in seconds; `nil` (the default) sets none, so only ``timeout`` applies. Set
    /// it with `timeout: .infinity` to read a long stream that must never stall.
    public var idleTimeout: TimeInterval? {
        get { storage.idleTimeout }
        set { mutableStorage.idleTimeout = newValue }
    }
    /// The most bytes of a response body collected into memory, counted after the transport
    /// decompressed them: a larger body ends in
    /// ``BaseServerError/Code-swift.struct/responseTooLarge`` as soon as it passes the limit,
    /// with the connection closed. 64 MiB by default.
    public var maximumResponseBodySize: Int {
        get { storage.maximumResponseBodySize }
        set { mutableStorage.maximumResponseBodySize = newValue }
    }
    /// The most bytes a download to a file (``ServerRequest/downloadDestination``) may have;
    /// `nil` (the default) sets no limit. Past it, ``BaseServerError/Code-swift.struct/responseTooLarge``.
    public var maximumDownloadSize: Int64? {
        get { storage.maximumDownloadSize }
        set { mutableStorage.maximumDownloadSize = newValue }
    }
    /// Where requests in flight are registered.
    public var taskPool: TaskPool {
        get { storage.taskPool }
        set { mutableStorage.taskPool = newValue }
    }
    /// Stores responses for the ``CachePolicy`` of each request; `nil` (the default) caches
    /// nothing, and the pipeline then skips every cache step. See ``DiskCacheAdapter`` and
    /// ``UrlCacheAdapter``.
    public var cacheAdapter: (any CacheAdapter)? {
        get { storage.cacheAdapter }
        set { mutableStorage.cacheAdapter = newValue }
    }
    /// Authorizes requests that require it (``ServerRequest/requiresAuthorization``): adds the
    /// access token, refreshes it once for any number of rejections and replays; `nil` (the
    /// default) sends requests as they are.
    public var accessManager: AccessSafeRequestManager? {
        get { storage.accessManager }
        set { mutableStorage.accessManager = newValue }
    }
    /// Observe every request of this configuration (metrics, tracing, debugging); empty by
    /// default, and then a request pays nothing for monitoring. See ``NetworkEventMonitor``.
    public var monitors: [any NetworkEventMonitor] {
        get { storage.monitors }
        set { mutableStorage.monitors = newValue }
    }
    /// When and how often failed requests are sent again; `nil` (the default) never retries.
    /// A request can bring its own (``ServerRequest/retryPolicy``).
    public var retryPolicy: RetryPolicy? {
        get { storage.retryPolicy }
        set { mutableStorage.retryPolicy = newValue }
    }
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
        get { storage.interceptors }
        set {
            let stages = Self.withStandardStages(newValue)
            let storage = mutableStorage
            storage.interceptors = stages
            storage.standardStages = stages.map(StandardStage.init)
        }
    }
    /// Where the library reads the time and waits: cache dates, back-off, stub latency,
    /// progress throttling. ``SystemClock`` by default; tests use a ``ManualClock``.
    public var clock: any NetworkClock {
        get { storage.clock }
        set { mutableStorage.clock = newValue }
    }
    /// Freshness for cached responses without `max-age` or `Expires`, from their
    /// `Last-Modified` (used by ``CachePolicy/cacheIfFreshElseServer``); `nil` (the default)
    /// treats such a response as stale, so it is always revalidated.
    public var heuristicFreshness: HeuristicFreshness? {
        get { storage.heuristicFreshness }
        set { mutableStorage.heuristicFreshness = newValue }
    }
    /// Where cookies are kept; `nil` (the default) keeps none and sends none. With a storage,
    /// every request gets the `Cookie` header of the stored cookies that match its URL (RFC 6265:
    /// domain, path, `Secure`, expiry by ``clock``) and every response's `Set-Cookie` fields are
    /// stored, the same on every transport. RFC 6265 does not isolate ports: a cookie set by a
    /// host is sent to every port of that host. See <doc:Cookies>.
    public var cookieStorage: HTTPCookieStorage? {
        get { storage.cookieStorage }
        set { mutableStorage.cookieStorage = newValue }
    }

    /// For each of ``preparators``, the same preparator when it prepares in place
    /// (``InPlacePreparator``): the chain runs those without an async call.
    var inPlacePreparators: [(any InPlacePreparator)?] { storage.inPlacePreparators }

    /// For each stage of ``interceptors``, which standard stage it is (``StandardStage``).
    var standardStages: [StandardStage?] { storage.standardStages }

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
        self.storage = Storage(
            transport: transport ?? SharedTransport.urlSession, preparators: preparators, validators: validators,
            errorMappers: errorMappers, decoder: decoder, encoder: encoder, logger: logger,
            callbackQueue: callbackQueue, timeout: timeout, idleTimeout: idleTimeout,
            maximumResponseBodySize: maximumResponseBodySize, maximumDownloadSize: maximumDownloadSize,
            taskPool: taskPool, cacheAdapter: cacheAdapter, accessManager: accessManager, monitors: monitors,
            retryPolicy: retryPolicy, interceptors: Self.withStandardStages(interceptors), clock: clock,
            heuristicFreshness: heuristicFreshness, cookieStorage: cookieStorage)
    }

    private static let shared = Locked(NetworkConfiguration())

    /// The configuration of every request that does not bring its own. Reading and writing are
    /// thread-safe; a change affects requests performed afterwards.
    public static var `default`: NetworkConfiguration {
        get { shared.withLock { $0 } }
        set { shared.withLock { $0 = newValue } }
    }

    /// The settings of a ``NetworkConfiguration``, behind its copy-on-write reference.
    private final class Storage: @unchecked Sendable {
        // safe: a Storage is changed only through `mutableStorage`, when the one configuration
        // value holding it is its only owner; shared storage is only read.

        var transport: any Transport
        var preparators: [any RequestPreparator] {
            didSet { inPlacePreparators = Self.inPlace(preparators) }
        }
        /// For each of `preparators`, the same preparator when the library's own works in place.
        private(set) var inPlacePreparators: [(any InPlacePreparator)?]
        var validators: [any ResponseValidator]
        var errorMappers: [any ErrorMapperAdapter]
        var decoder: JSONDecoder
        var encoder: JSONEncoder
        var logger: (any NetworkLogger)?
        var callbackQueue: DispatchQueue
        var timeout: TimeInterval
        var idleTimeout: TimeInterval?
        var maximumResponseBodySize: Int
        var maximumDownloadSize: Int64?
        var taskPool: TaskPool
        var cacheAdapter: (any CacheAdapter)?
        var accessManager: AccessSafeRequestManager?
        var monitors: [any NetworkEventMonitor]
        var retryPolicy: RetryPolicy?
        var interceptors: [any Interceptor]
        var clock: any NetworkClock
        var heuristicFreshness: HeuristicFreshness?
        var cookieStorage: HTTPCookieStorage?
        /// For each of `interceptors`, which standard stage it is (`nil`: a stage of yours).
        var standardStages: [StandardStage?]

        init(
            transport: any Transport,
            preparators: [any RequestPreparator],
            validators: [any ResponseValidator],
            errorMappers: [any ErrorMapperAdapter],
            decoder: JSONDecoder,
            encoder: JSONEncoder,
            logger: (any NetworkLogger)?,
            callbackQueue: DispatchQueue,
            timeout: TimeInterval,
            idleTimeout: TimeInterval?,
            maximumResponseBodySize: Int,
            maximumDownloadSize: Int64?,
            taskPool: TaskPool,
            cacheAdapter: (any CacheAdapter)?,
            accessManager: AccessSafeRequestManager?,
            monitors: [any NetworkEventMonitor],
            retryPolicy: RetryPolicy?,
            interceptors: [any Interceptor],
            clock: any NetworkClock,
            heuristicFreshness: HeuristicFreshness?,
            cookieStorage: HTTPCookieStorage?
        ) {
            self.transport = transport
            self.preparators = preparators
            self.inPlacePreparators = Self.inPlace(preparators)
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
            self.interceptors = interceptors
            self.clock = clock
            self.heuristicFreshness = heuristicFreshness
            self.cookieStorage = cookieStorage
            self.standardStages = interceptors.map(StandardStage.init)
        }

        private static func inPlace(_ preparators: [any RequestPreparator]) -> [(any InPlacePreparator)?] {
            preparators.map { $0 as? any InPlacePreparator }
        }

        func copy() -> Storage {
            Storage(
                transport: transport, preparators: preparators, validators: validators, errorMappers: errorMappers,
                decoder: decoder, encoder: encoder, logger: logger, callbackQueue: callbackQueue, timeout: timeout,
                idleTimeout: idleTimeout, maximumResponseBodySize: maximumResponseBodySize,
                maximumDownloadSize: maximumDownloadSize, taskPool: taskPool, cacheAdapter: cacheAdapter,
                accessManager: accessManager, monitors: monitors, retryPolicy: retryPolicy, interceptors: interceptors,
                clock: clock, heuristicFreshness: heuristicFreshness, cookieStorage: cookieStorage)
        }
    }
}

/// The transport shared by configurations that name none.
enum SharedTransport {
    static let urlSession = URLSessionTransport()
}
