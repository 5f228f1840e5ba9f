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
    ///
    /// The setting of the ``PreparatorInterceptor`` in ``interceptors``; an empty list removes that stage.
    public var preparators: [any RequestPreparator] {
        get { stage(PreparatorInterceptor.self)?.preparators ?? [] }
        set { setStage(newValue.isEmpty ? nil : PreparatorInterceptor(newValue)) }
    }
    /// Decide success, in order; by default ``StatusCodeValidator`` (2xx).
    ///
    /// Set with ``errorMappers`` on the ``ResponseValidationInterceptor``, in ``interceptors`` while either is set.
    public var validators: [any ResponseValidator] {
        get { stage(ResponseValidationInterceptor.self)?.validators ?? [] }
        set { setStage(ResponseValidationInterceptor(validators: newValue, errorMappers: errorMappers)) }
    }
    /// Turn failed responses into the app's errors; the first match wins. A setting of the
    /// ``ResponseValidationInterceptor``, with ``validators``.
    public var errorMappers: [any ErrorMapperAdapter] {
        get { stage(ResponseValidationInterceptor.self)?.errorMappers ?? [] }
        set { setStage(ResponseValidationInterceptor(validators: validators, errorMappers: newValue)) }
    }
    /// Decodes models in the default mapping.
    public var decoder: JSONDecoder
    /// Encodes `.json` parameters.
    public var encoder: JSONEncoder
    /// Receives request and response log entries; `nil` logs nothing.
    public var logger: (any NetworkLogger)?
    /// The queue context handlers run on; `.main` by default.
    ///
    /// That is the main *queue*: on Linux under an async `main` another thread drains it (`Thread.isMainThread` is
    /// `false`). Set your own if nothing drains it.
    public var callbackQueue: DispatchQueue
    /// The deadline, in seconds, of requests that set none (60 by default): it bounds the whole exchange on every
    /// transport, from the first byte sent to the last body byte read (slow headers, a stalled or trickled body, a
    /// lying `Content-Length`, endless `1xx`), ending it in ``BaseServerError/Code-swift.struct/timeout`` with the
    /// connection closed.
    ///
    /// `.infinity` (here or on ``ServerRequest/timeout``) sets none, for a long stream read under ``idleTimeout``.
    public var timeout: TimeInterval
    /// The longest silence allowed between two pieces of a response (its head, then each body chunk), in seconds; `nil`
    /// (the default) sets none. Set it with `timeout: .infinity` to read a long stream that must never stall.
    public var idleTimeout: TimeInterval?
    /// The most bytes of a response body collected into memory, counted after decompression; 64 MiB by default.
    ///
    /// A larger body ends in ``BaseServerError/Code-swift.struct/responseTooLarge`` with the connection closed.
    public var maximumResponseBodySize: Int
    /// The most bytes a download to a file (``ServerRequest/downloadDestination``) may have;
    /// `nil` (the default) sets no limit. Past it, ``BaseServerError/Code-swift.struct/responseTooLarge``.
    public var maximumDownloadSize: Int64?
    /// Where requests in flight are registered.
    public var taskPool: TaskPool
    /// Stores responses for each request's ``CachePolicy``; `nil` (the default) caches nothing.
    ///
    /// See ``DiskCacheAdapter`` and ``UrlCacheAdapter``. The setting of the ``CacheInterceptor`` in ``interceptors``:
    /// setting it replaces, adds or (with `nil`) removes that stage.
    public var cacheAdapter: (any CacheAdapter)? {
        get { stage(CacheInterceptor.self)?.adapter }
        set { setStage(newValue.map { CacheInterceptor(adapter: $0) }) }
    }
    /// Authorizes requests that require it (``ServerRequest/requiresAuthorization``): adds the access token, refreshes
    /// it once for any number of rejections and replays; `nil` (the default) sends requests as they are.
    ///
    /// The setting of the ``AccessTokenInterceptor`` in ``interceptors``.
    public var accessManager: AccessSafeRequestManager? {
        get { stage(AccessTokenInterceptor.self)?.manager }
        set { setStage(newValue.map { AccessTokenInterceptor(manager: $0) }) }
    }
    /// Observe every request of this configuration (metrics, tracing, debugging); empty by default, so a request pays
    /// nothing for monitoring. See ``NetworkEventMonitor``.
    public var monitors: [any NetworkEventMonitor]
    /// When and how often failed requests are sent again; `nil` (the default) retries only the requests that bring
    /// their own ``ServerRequest/retryPolicy``.
    ///
    /// The setting of the ``RetryInterceptor``, which stays in ``interceptors`` when this is `nil` (for those
    /// requests); remove it from the list to never retry.
    public var retryPolicy: RetryPolicy? {
        get { stage(RetryInterceptor.self)?.policy }
        set { setStage(RetryInterceptor(policy: newValue)) }
    }
    /// The stages every request goes through before the transport, from the outside in: the built-in ones, then yours.
    ///
    /// The list is exactly what runs. Each built-in stage is made from its setting (``validators`` and
    /// ``errorMappers``, ``retryPolicy``, ``preparators``, ``cacheAdapter``, ``accessManager``); a feature that is off
    /// has no stage. Setting a setting replaces its stage in place or adds it in its standard place; removing a stage
    /// turns its feature off (its setting then reads empty). Append your own ``Interceptor`` to run it right before the
    /// transport (after the token is added, once per attempt), or place it before a built-in one with
    /// `interceptors.insert(_:before:)`.
    public var interceptors: [any Interceptor]
    /// Where the library reads the time and waits: cache dates, back-off, stub latency,
    /// progress throttling. ``SystemClock`` by default; tests use a ``ManualClock``.
    public var clock: any NetworkClock
    /// Freshness from `Last-Modified` for cached responses without `max-age` or `Expires` (used by
    /// ``CachePolicy/cacheIfFreshElseServer``); `nil` (the default) treats them as stale, so always revalidated.
    public var heuristicFreshness: HeuristicFreshness?
    /// Where cookies are kept; `nil` (the default) keeps and sends none.
    ///
    /// Otherwise every request, on every transport, gets the `Cookie` header of the matching stored cookies (RFC 6265:
    /// domain, path, `Secure`, expiry by ``clock``; not port) and every response's `Set-Cookie` fields are stored. See
    /// <doc:Cookies>.
    public var cookieStorage: HTTPCookieStorage?

    private func stage<Stage: Interceptor>(_ type: Stage.Type) -> Stage? {
        interceptors.first { $0 is Stage } as? Stage
    }

    /// Replaces the first stage of its type, or inserts it in its standard place; `nil` or an off stage removes it.
    private mutating func setStage<Stage: BuiltInStage>(_ stage: Stage?) {
        var stages = interceptors
        let index = stages.firstIndex { $0 is Stage }
        switch (stage.flatMap { $0.isOff ? nil : $0 }, index) {
        case (let stage?, let index?): stages[index] = stage
        case (let stage?, nil): stages.insert(stage, at: Self.standardPlace(of: Stage.self, in: stages))
        case (nil, let index?): stages.remove(at: index)
        case (nil, nil): return
        }
        interceptors = stages
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
        interceptors: [any Interceptor] = [],
        clock: any NetworkClock = SystemClock(),
        heuristicFreshness: HeuristicFreshness? = nil,
        cookieStorage: HTTPCookieStorage? = nil
    ) {
        let builtIn: [any BuiltInStage] = [
            ResponseValidationInterceptor(validators: validators, errorMappers: errorMappers),
            RetryInterceptor(policy: retryPolicy), PreparatorInterceptor(preparators),
            cacheAdapter.map { CacheInterceptor(adapter: $0) },
            accessManager.map { AccessTokenInterceptor(manager: $0) },
        ].compactMap { $0 }
        // A built-in stage among `interceptors` takes the place of the one made from its setting.
        let given = Set(interceptors.map { ObjectIdentifier(type(of: $0)) })
        let stages = builtIn.filter { !$0.isOff && !given.contains(ObjectIdentifier(type(of: $0))) }
        self.transport = transport ?? Self.sharedTransport
        self.decoder = decoder
        self.encoder = encoder
        self.logger = logger
        self.callbackQueue = callbackQueue
        self.timeout = timeout
        self.idleTimeout = idleTimeout
        self.maximumResponseBodySize = maximumResponseBodySize
        self.maximumDownloadSize = maximumDownloadSize
        self.taskPool = taskPool
        self.monitors = monitors
        self.interceptors = stages + interceptors
        self.clock = clock
        self.heuristicFreshness = heuristicFreshness
        self.cookieStorage = cookieStorage
    }

    private static let shared = Locked(NetworkConfiguration())
    private static let sharedTransport = URLSessionTransport()

    /// The configuration of every request that does not bring its own; thread-safe to read and write, and a change
    /// affects requests performed afterwards.
    public static var `default`: NetworkConfiguration {
        get { shared.withLock { $0 } }
        set { shared.withLock { $0 = newValue } }
    }
}

/// A stage the library ships, made from one ``NetworkConfiguration`` setting that reads and replaces it in the list;
/// the chain runs it as any other stage.
protocol BuiltInStage: Interceptor {
    /// Whether the stage has nothing to do (its setting is empty), so the list leaves it out.
    var isOff: Bool { get }
}

extension NetworkConfiguration {
    /// The built-in stages in their standard order, from the outside in: validation judges what every later stage
    /// agreed on, retry sends the rest again, the preparators run once, the cache sees the prepared request and answers
    /// before any token is needed.
    static let builtInOrder: [any Interceptor.Type] = [
        ResponseValidationInterceptor.self, RetryInterceptor.self, PreparatorInterceptor.self,
        CacheInterceptor.self, AccessTokenInterceptor.self,
    ]

    /// Where a built-in stage of `type` goes in `stages` that lack one: right after the nearest built-in stage that
    /// comes before it in the standard order, else right before the nearest that comes after it, else first.
    static func standardPlace(of type: any Interceptor.Type, in stages: [any Interceptor]) -> Int {
        guard let order = builtInOrder.firstIndex(where: { $0 == type }) else { return stages.count }
        for earlier in builtInOrder[..<order].reversed() {
            if let index = stages.firstIndex(ofStage: earlier) { return index + 1 }
        }
        for later in builtInOrder[(order + 1)...] {
            if let index = stages.firstIndex(ofStage: later) { return index }
        }
        return 0
    }
}

extension Array where Element == any Interceptor {
    /// Inserts `stage` right before the first stage of type `anchor`, to place it relative to a built-in one; with no
    /// such stage (a feature that is off) it appends `stage`, which then runs right before the transport.
    ///
    /// ```swift
    /// configuration.interceptors.insert(CacheKeyInterceptor(), before: CacheInterceptor.self)
    /// ```
    ///
    /// - Returns: whether a stage of type `anchor` was found.
    @discardableResult
    public mutating func insert(_ stage: any Interceptor, before anchor: any Interceptor.Type) -> Bool {
        insert(stage, next: anchor, offset: 0)
    }

    /// Inserts `stage` right after the first stage of type `anchor` (further in, closer to the transport), or appends
    /// it as ``insert(_:before:)`` does; returns whether a stage of type `anchor` was found.
    @discardableResult
    public mutating func insert(_ stage: any Interceptor, after anchor: any Interceptor.Type) -> Bool {
        insert(stage, next: anchor, offset: 1)
    }

    private mutating func insert(_ stage: any Interceptor, next anchor: any Interceptor.Type, offset: Int) -> Bool {
        guard let index = firstIndex(ofStage: anchor) else {
            append(stage)
            return false
        }
        insert(stage, at: index + offset)
        return true
    }

    /// The index of the first stage of type `type`, if any.
    public func firstIndex(ofStage type: any Interceptor.Type) -> Int? {
        let id = ObjectIdentifier(type)
        return firstIndex { ObjectIdentifier(Swift.type(of: $0)) == id }
    }
}
