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
///   waits for that one refresh and is sent once more. A request rejected for a token older than the current one is
///   replayed at once, without a refresh. A second rejection ends in
///   ``BaseServerError/Code-swift.struct/unauthorized``.
/// - When the refresh fails, every waiting request fails with ``BaseServerError/Code-swift.struct/tokenRefreshFailed``
///   carrying the cause, and the ``onSessionExpired(_:)`` handlers run once. A later request may refresh again.
/// - At most ``Options/maxRefreshes`` refreshes run per ``Options/refreshWindow``; one more fails with
///   ``BaseServerError/Code-swift.struct/excessiveRefresh``. A refresh that takes longer than
///   ``Options/refreshTimeout`` fails.
/// - Cancelling a waiting request takes it out of the queue and ends its context; the others are unaffected, and the
///   refresh goes on.
/// - When the expiry is known, a request about to go out within ``Options/refreshBeforeExpiry`` of it refreshes first
///   (still one refresh for all).
///
/// Create more managers with ``init(store:refresher:options:)`` for several accounts, or in tests. Every method is
/// thread-safe.
public final class AccessSafeRequestManager: Sendable {
    /// The app's manager: no tokens and no refresher until ``configure(store:refresher:options:)``.
    public static let shared = AccessSafeRequestManager()

    /// A request waiting in the queue for a refresh.
    typealias Waiter = CheckedContinuation<Ticket, any Error>

    /// Everything the manager changes, under one lock.
    struct Guarded {
        var machine: State<Waiter>
        var store: any TokenStore
        var expiredHandlers: [@Sendable (BaseServerError) -> Void] = []
        /// Test hook: continuations resumed once the queue holds at least `count` requests.
        var watchers: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiterId = 0
        /// The last session end reported other than a failed refresh, so each is reported once: its code and the token
        /// version it happened at.
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

    /// Creates a manager that reads its tokens from `store` now.
    ///
    /// - Parameters:
    ///   - store: where the tokens are kept; an empty in-memory store by default.
    ///   - refresher: renews the tokens; without one, a rejection ends in
    ///     ``BaseServerError/Code-swift.struct/unauthorized``.
    ///   - options: how rejections are recognised and refreshes limited.
    public init(
        store: any TokenStore = InMemoryTokenStore(), refresher: (any TokenRefresher)? = nil,
        options: Options = Options()
    ) {
        let machine = State<Waiter>(tokens: store.load(), refresher: refresher, options: options)
        state = Locked(Guarded(machine: machine, store: store))
    }

    /// Sets the store, refresher and options, and reads the tokens from `store`. Call it once, at start-up, before the
    /// first request; calling it again replaces all three for later requests (a refresh in flight finishes with the old
    /// refresher, and its result is dropped in favour of the new store's tokens). ``onSessionExpired(_:)`` handlers are
    /// kept.
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

    /// Replaces the tokens and saves them to the store: call it after signing in, and with `nil` when signing out.
    /// Requests already waiting for a refresh go out with these tokens when it ends; the refresh's own result is
    /// dropped.
    public func setTokens(_ tokens: AuthTokens?) {
        let (version, store) = state.withLock { state in (state.machine.setTokens(tokens), state.store) }
        persist(tokens, version: version, to: store)
    }

    /// Adds a handler for the end of the session: the one signal for every way the signed-in session can end, so the
    /// app can log the user out.
    ///
    /// The handler receives the error the requests fail with; its code says why:
    /// - ``BaseServerError/Code-swift.struct/tokenRefreshFailed``: a refresh failed in a way
    ///   ``Options/isSessionExpired`` accepts (by default, anything but a connection problem or a `5xx`); the
    ///   refresher's error is the ``BaseServerError/underlyingError``. Once per failed refresh, however many requests
    ///   waited for it.
    /// - ``BaseServerError/Code-swift.struct/excessiveRefresh``: refreshing was refused because
    ///   ``Options/maxRefreshes`` ran within ``Options/refreshWindow`` (the server keeps rejecting every new token).
    ///   Once per set of tokens, however many requests are refused.
    /// - ``BaseServerError/Code-swift.struct/unauthorized``: the server rejected the token it had just renewed. Once
    ///   per set of tokens.
    ///
    /// Log the user out there and clear what belongs to them, for example the response cache
    /// (`CacheAdapter.removeAll()`). The handler runs on ``Options/callbackQueue``. A connection problem never ends the
    /// session. Handlers stay registered for the manager's lifetime.
    ///
    /// - Returns: this manager, to chain calls.
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
        var ticket = try await acquire(.send, now: options.clock.currentDate, response: nil)
        var replayed = false
        while true {
            let preparator = AccessTokenPreparator(header: options.header, scheme: options.scheme) { [ticket] in
                ticket.token
            }
            let response = try await send(try await preparator.prepare(request))
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
        do {
            return try await queueOrDecide(purpose, now: now, response: response)
        } catch let error as BaseServerError where error.code == .excessiveRefresh {
            reportSessionEnd(error, version: state.withLock { $0.machine.ticket.version })
            throw error
        }
    }

    private func queueOrDecide(_ purpose: Purpose, now: Date, response: ServerResponse?) async throws -> Ticket {
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
