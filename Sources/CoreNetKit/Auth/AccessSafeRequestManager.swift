//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

/// Authorizes requests with an access token and keeps it fresh: one refresh for any number of rejected requests, every
/// waiting request replayed once with the new token, none lost.
///
/// Configure the app's ``shared`` manager once at start-up and put it into the configuration; from then on every
/// request whose ``ServerRequest/requiresAuthorization`` is `true` (the default) goes through it:
///
/// ```swift
/// AccessSafeRequestManager.shared.configure(store: KeychainTokenStore(), refresher: APIRefresher())
/// AccessSafeRequestManager.shared.onSessionExpired { _ in session.logOut() }
/// NetworkConfiguration.default.accessManager = .shared
/// ```
///
/// What it guarantees:
/// - Every send carries the current access token in ``Options/header``; a request that starts while a refresh runs
///   waits for it and goes out with the new token.
/// - A rejection (``Options/trigger``, a `401` by default) starts a refresh unless one runs; every rejected request
///   waits for that one refresh and is sent once more (at once, without a refresh, if its token was already replaced).
///   A second rejection ends in ``BaseServerError/Code-swift.struct/unauthorized``.
/// - A failed refresh fails every waiting request with ``BaseServerError/Code-swift.struct/tokenRefreshFailed``
///   (carrying the cause) and runs ``onSessionExpired(_:)`` once; a later request may refresh again.
/// - Refreshes are limited (``Options/maxRefreshes``) and timed out (``Options/refreshTimeout``).
/// - Cancelling a waiting request removes it from the queue and ends its context; the others and the refresh go on.
/// - A request within ``Options/refreshBeforeExpiry`` of a known expiry refreshes first (still one refresh for all).
///
/// Create more managers with ``init(store:refresher:options:)`` for several accounts, or in tests. Thread-safe.
public final class AccessSafeRequestManager: Sendable {
    /// The app's manager: no tokens and no refresher until ``configure(store:refresher:options:)``.
    public static let shared = AccessSafeRequestManager()

    typealias Waiter = CheckedContinuation<Ticket, any Error>

    struct Guarded {
        var machine: State<Waiter>
        var store: any TokenStore
        var expiredHandlers: [@Sendable (BaseServerError) -> Void] = []
        /// Test hook: continuations resumed once the queue holds at least `count` requests.
        var watchers: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiterId = 0
        /// The last non-refresh session end reported, and its token version, so each is reported once.
        var lastEnding: (code: BaseServerError.Code, version: Int)?

        mutating func makeWaiterId() -> Int {
            nextWaiterId += 1
            return nextWaiterId
        }

        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let ready = watchers.filter { $0.value.count <= machine.waitingCount }
            for id in ready.keys { watchers[id] = nil }
            return ready.values.map(\.continuation)
        }
    }

    let state: Locked<Guarded>
    /// The version last written to the store; a lock of its own that only orders writes.
    let written = Locked(Int.min)

    /// Creates a manager that reads its tokens from `store` (empty in memory by default) now.
    ///
    /// Without a `refresher`, a rejection ends in ``BaseServerError/Code-swift.struct/unauthorized``.
    public init(
        store: any TokenStore = InMemoryTokenStore(), refresher: (any TokenRefresher)? = nil,
        options: Options = Options()
    ) {
        let machine = State<Waiter>(tokens: store.load(), refresher: refresher, options: options)
        state = Locked(Guarded(machine: machine, store: store))
    }

    /// Sets the store, refresher and options, and reads the tokens from `store`; call it once at start-up. Calling it
    /// again replaces all three for later requests (a refresh in flight finishes, its result dropped for the new
    /// store's tokens); ``onSessionExpired(_:)`` handlers are kept.
    public func configure(
        store: any TokenStore = InMemoryTokenStore(), refresher: (any TokenRefresher)?,
        options: Options = Options()
    ) {
        let tokens = store.load()
        state.withLock { state in
            state.store = store
            state.machine.refresher = refresher
            state.machine.options = options
            _ = state.machine.setTokens(tokens)
        }
    }

    /// The current tokens, `nil` when no account is signed in.
    public var tokens: AuthTokens? { state.withLock { $0.machine.tokens } }

    /// Whether a refresh is in flight.
    public var isRefreshing: Bool { state.withLock { $0.machine.running != nil } }

    /// Replaces and saves the tokens: after signing in, or `nil` when signing out.
    ///
    /// Tokens made with ``AuthTokens/init(accessToken:refreshToken:expiresIn:now:)`` and no `now` expire that long
    /// after this call, by ``Options/clock``.
    ///
    /// Requests waiting for a refresh go out with these when it ends; the refresh's own result is dropped.
    public func setTokens(_ tokens: AuthTokens?) {
        let (version, set, store) = state.withLock { state in
            (state.machine.setTokens(tokens), state.machine.tokens, state.store)
        }
        persist(set, version: version, to: store)
    }

    /// Adds a handler for the end of the session, whatever ends it, so the app can log the user out and clear what is
    /// theirs (e.g. `CacheAdapter.removeAll()`).
    ///
    /// Runs on ``Options/callbackQueue``; handlers stay for the manager's lifetime; a connection problem never ends the
    /// session. Returns this manager, to chain calls.
    ///
    /// The handler receives the error the requests fail with; its code says why:
    /// - ``BaseServerError/Code-swift.struct/tokenRefreshFailed``: a refresh failed in a way
    ///   ``Options/isSessionExpired`` accepts; the refresher's error is the ``BaseServerError/underlyingError``. Once
    ///   per failed refresh, however many requests waited.
    /// - ``BaseServerError/Code-swift.struct/excessiveRefresh``: ``Options/maxRefreshes`` ran within
    ///   ``Options/refreshWindow`` (the server keeps rejecting new tokens). Once per set of tokens.
    /// - ``BaseServerError/Code-swift.struct/unauthorized``: the server rejected the token it had just renewed. Once
    ///   per set of tokens.
    @discardableResult
    public func onSessionExpired(_ handler: @escaping @Sendable (BaseServerError) -> Void) -> Self {
        state.withLock { $0.expiredHandlers.append(handler) }
        return self
    }

    // MARK: The pipeline's entry

    /// Sends `request` with the current token through `send` (the rest of the chain, for the token stage), waiting
    /// while a refresh runs, and after a rejection refreshes once and sends again. Returns the raw response, not
    /// validated. `onRefresh` hears the refresh this call started or joined, on the calling Task.
    public func roundTrip(
        _ request: ServerRequest, onRefresh: (TokenRefreshEvent) -> Void = { _ in },
        send: (ServerRequest) async throws -> ServerResponse
    ) async throws -> ServerResponse {
        if Self.refreshing == ObjectIdentifier(self) { return try await send(request) }  // the refresh request itself
        let options = state.withLock { $0.machine.options }
        // Only `authorize(_:with:)` is used, with each ticket's token.
        let preparator = AccessTokenPreparator(header: options.header, scheme: options.scheme) { nil }
        var ticket = try await acquire(.send, now: options.clock.currentDate, response: nil)
        var replayed = false
        while true {
            let response = try await send(try preparator.authorize(request, with: ticket.token))
            guard options.trigger.matches(response) else { return response }
            guard !replayed else {
                let error = BaseServerError.unauthorized(
                    response, reason: "the server rejected the access token again after it was renewed")
                reportSessionEnd(error, version: ticket.version)
                throw error
            }
            onRefresh(.started)
            do {
                ticket = try await acquire(.rejected(ticket), now: options.clock.currentDate, response: response)
            } catch {
                if let error = error as? BaseServerError, error.code == .excessiveRefresh {
                    reportSessionEnd(error, version: state.withLock { $0.machine.ticket.version })
                }
                onRefresh(.finished(succeeded: false))
                throw error
            }
            onRefresh(.finished(succeeded: true))
            replayed = true
        }
    }

    /// The ticket to send with for `purpose`: at once, or after waiting in the queue for a refresh (which this request
    /// may start). Cancelling the Task leaves the queue at once.
    private func acquire(_ purpose: Purpose, now: Date, response: ServerResponse?) async throws -> Ticket {
        if let decision = state.withLock({ $0.machine.decide(purpose, now: now) }) {
            return try Self.ticket(from: decision, response: response)
        }
        let id = state.withLock { $0.makeWaiterId() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let (enqueued, watchers) = state.withLock {
                    state -> (State<Waiter>.Enqueued, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (.decided(.fail(.cancelled)), []) }
                    let enqueued = state.machine.enqueue(purpose, now: now, id: id, waiter: continuation)
                    return (enqueued, state.takeSatisfiedWatchers())
                }
                for watcher in watchers { watcher.resume() }
                switch enqueued {
                case .decided(let decision):
                    continuation.resume(with: Result { try Self.ticket(from: decision, response: response) })
                case .waiting:
                    break
                case .start(let job):
                    run(job)
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.machine.removeWaiter(id) }
            waiter?.resume(throwing: BaseServerError.cancelled)
        }
    }

    private static func ticket(from decision: Decision, response: ServerResponse?) throws -> Ticket {
        switch decision {
        case .proceed(let ticket): return ticket
        case .fail(let error): throw error
        case .unauthorized(let reason): throw BaseServerError.unauthorized(response, reason: reason)
        }
    }
}

/// The stage of NetworkConfiguration/accessManager (setting that adds, replaces or removes it): it sends each request
/// that ServerRequest/requiresAuthorization through the AccessSafeRequestManager; others pass through.
///
/// It runs after the cache stage, so an answer from the cache never waits for a token or a refresh.
public struct AccessTokenInterceptor: Interceptor, BuiltInStage {
    /// The manager that holds the token and runs refreshes.
    public let manager: AccessSafeRequestManager

    /// Creates the stage of `manager`.
    public init(manager: AccessSafeRequestManager) { self.manager = manager }

    var isOff: Bool { false }

    public func intercept(_ request: consuming ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        guard request.requiresAuthorization else { return try await next.proceed(request) }
        return try await manager.roundTrip(
            request,
            onRefresh: { event in
                next.emit { monitor, request in monitor.request(request, tokenRefresh: event) }
            },
            send: { try await next.proceed($0) })
    }
}

/// Puts an access token into a request's header: `Authorization: Bearer <token>` by default.
///
/// The ``AccessSafeRequestManager`` applies one on every send, so a replay after a refresh carries the new token; its
/// stage (``AccessTokenInterceptor``) comes after ``PreparatorInterceptor`` and ``CacheInterceptor``, so its header
/// replaces one the request or a preparator set. Use it alone for a token that never needs refreshing:
///
/// ```swift
/// configuration.preparators.append(AccessTokenPreparator(header: "X-Api-Key", scheme: nil) { apiKey })
/// ```
///
/// A custom header is redacted in logs only when the logger knows it as a secret (names ending in `token` or `key`).
public struct AccessTokenPreparator: RequestPreparator {
    /// The header that carries the token, `Authorization` by default.
    public var header: String
    /// The word before the token, `Bearer` by default; `nil` sends the token alone.
    public var scheme: String?
    private let token: @Sendable () async throws -> String?

    /// Creates a preparator that adds the token `token` returns (none when it returns `nil`).
    public init(
        header: String = "Authorization", scheme: String? = "Bearer",
        token: @escaping @Sendable () async throws -> String?
    ) {
        self.header = header
        self.scheme = scheme
        self.token = token
    }

    public func prepare(_ request: ServerRequest) async throws -> ServerRequest {
        try authorize(request, with: try await token())
    }

    /// `request` with `token` in ``header``, replacing any value there (whatever its case); with `nil`, without it.
    ///
    /// Throws ``BaseServerError`` `invalidRequest` (never showing the token) when it is empty or holds characters a
    /// header cannot carry.
    public func authorize(_ request: ServerRequest, with token: String?) throws -> ServerRequest {
        var request = request
        for name in request.headers.keys where name.caseInsensitiveCompare(header) == .orderedSame {
            request.headers[name] = nil
        }
        guard let token else { return request }
        guard Self.isValidToken(token) else {
            throw BaseServerError.invalidRequest(
                "the access token is empty or holds characters an HTTP header cannot carry")
        }
        request.headers[header] = scheme.map { "\($0) \(token)" } ?? token
        return request
    }

    /// Whether `token` is non-empty visible ASCII with no spaces at its ends (RFC 7230 field-value), safe in a header.
    static func isValidToken(_ token: String) -> Bool {
        let bytes = token.utf8
        return !bytes.isEmpty && bytes.first != 0x20 && bytes.last != 0x20
            && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
