//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension AccessSafeRequestManager {
    /// The token a request goes out with; ``version`` counts token changes, ``epoch`` finished refreshes. On rejection,
    /// an older version replays without a refresh; an older epoch shares a failed refresh's error instead of retrying.
    struct Ticket: Sendable, Equatable {
        var token: String?
        var version: Int
        var epoch: Int
    }

    enum Purpose: Sendable {
        case send
        case rejected(Ticket)
    }

    /// What a request does without waiting.
    enum Decision: Sendable {
        case proceed(Ticket)
        case fail(BaseServerError)
        case unauthorized(String)
    }

    struct Job: Sendable {
        let id: Int
        let tokens: AuthTokens
        let refresher: any TokenRefresher
        let timeout: Duration
        let clock: any NetworkClock

        /// Runs the refresher; the new tokens' pending lifetime counts from when they arrive.
        func refresh() async throws -> AuthTokens {
            try await refresher.refresh(tokens).anchored(at: clock.currentDate)
        }
    }

    /// The end of a refresh: who waited, what they get, what to persist and report.
    struct Finished<Waiter> {
        var waiters: [Waiter]
        var result: Result<Ticket, BaseServerError>
        var persist: (tokens: AuthTokens, version: Int)?
        /// The refresher's error, when the refresh failed (checked against `isSessionExpired`).
        var cause: (any Error)?
        var timer: Task<Void, Never>?
    }

    /// The manager's decisions as a plain value. Methods are synchronous and do no I/O: the manager calls them under
    /// its lock and acts on the result after unlocking.
    struct State<Waiter> {
        enum Enqueued {
            case decided(Decision)
            case waiting
            case start(Job)
        }

        struct Running {
            let id: Int
            let startVersion: Int
            var waiters: [Int: Waiter]
            var timer: Task<Void, Never>?
        }

        var refresher: (any TokenRefresher)?
        var options: Options
        private(set) var tokens: AuthTokens?
        private(set) var version = 0
        private(set) var epoch = 0
        private(set) var running: Running?
        private var lastFailure: (epoch: Int, error: BaseServerError)?
        private var starts: [Date] = []
        private var nextId = 0

        init(tokens: AuthTokens?, refresher: (any TokenRefresher)?, options: Options) {
            self.tokens = tokens?.anchored(at: options.clock.currentDate)
            self.refresher = refresher
            self.options = options
        }

        var ticket: Ticket { Ticket(token: tokens?.accessToken, version: version, epoch: epoch) }
        var waitingCount: Int { running?.waiters.count ?? 0 }

        /// What `purpose` leads to without waiting; `nil` when it must wait for a refresh (running, or to start).
        mutating func decide(_ purpose: Purpose, now: Date) -> Decision? {
            guard running == nil else { return nil }
            switch purpose {
            case .send:
                return needsProactiveRefresh(now: now) && allowsRefresh(now: now) ? nil : .proceed(ticket)
            case .rejected(let sent):
                if sent.version != version { return .proceed(ticket) }
                if let failure = lastFailure, failure.epoch > sent.epoch { return .fail(failure.error) }
                guard refresher != nil, tokens?.refreshToken != nil else {
                    return .unauthorized(
                        "the server rejected the access token and there is no refresh token to renew it")
                }
                return allowsRefresh(now: now)
                    ? nil : .fail(.excessiveRefresh(limit: options.maxRefreshes, window: options.refreshWindow))
            }
        }

        /// Like ``decide(_:now:)``, but one that must wait is queued as `waiter`, starting a refresh if none runs.
        mutating func enqueue(_ purpose: Purpose, now: Date, id: Int, waiter: Waiter) -> Enqueued {
            if running == nil {
                if let decision = decide(purpose, now: now) { return .decided(decision) }
                guard let tokens, let refresher else { return .decided(.proceed(ticket)) }
                nextId += 1
                starts.append(now)
                running = Running(id: nextId, startVersion: version, waiters: [id: waiter])
                return .start(
                    Job(
                        id: nextId, tokens: tokens, refresher: refresher, timeout: options.clampedTimeout,
                        clock: options.clock))
            }
            running?.waiters[id] = waiter
            return .waiting
        }

        mutating func removeWaiter(_ id: Int) -> Waiter? { running?.waiters.removeValue(forKey: id) }

        /// Remembers the timeout of refresh `id`; `false` when that refresh already ended.
        mutating func setTimer(_ timer: Task<Void, Never>, for id: Int) -> Bool {
            guard running?.id == id else { return false }
            running?.timer = timer
            return true
        }

        /// Ends refresh `id` with `result`; `nil` when it already ended (a timeout came first).
        mutating func finish(_ id: Int, with result: Result<AuthTokens, any Error>) -> Finished<Waiter>? {
            guard let run = running, run.id == id else { return nil }
            running = nil
            epoch += 1
            var finished = Finished<Waiter>(
                waiters: Array(run.waiters.values), result: .success(ticket), timer: run.timer)
            guard version == run.startVersion else { return finished }  // tokens were replaced meanwhile: they win
            switch result.flatMap(Self.validated) {
            case .success(var new):
                if new.refreshToken == nil { new.refreshToken = tokens?.refreshToken }
                let version = setTokens(new)
                finished.persist = (tokens ?? new, version)
                finished.result = .success(ticket)
            case .failure(let cause):
                let error = BaseServerError.tokenRefreshFailed(cause)
                lastFailure = (epoch, error)
                finished.result = .failure(error)
                finished.cause = cause
            }
            return finished
        }

        /// Replaces the tokens (sign-in, sign-out, a new store); a pending lifetime counts from now. Returns the version
        /// to persist.
        mutating func setTokens(_ new: AuthTokens?) -> Int {
            tokens = new?.anchored(at: options.clock.currentDate)
            version += 1
            lastFailure = nil
            return version
        }

        private func needsProactiveRefresh(now: Date) -> Bool {
            guard refresher != nil, tokens?.refreshToken != nil, let expiresAt = tokens?.expiresAt else { return false }
            return expiresAt.timeIntervalSince(now) <= options.refreshBeforeExpiry.timeInterval
        }

        /// Whether another refresh fits in the limit; forgets refreshes older than the window.
        private mutating func allowsRefresh(now: Date) -> Bool {
            let window = options.refreshWindow.timeInterval
            starts.removeAll { now.timeIntervalSince($0) >= window }
            return starts.count < options.maxRefreshes
        }

        static func validated(_ tokens: AuthTokens) -> Result<AuthTokens, any Error> {
            guard AccessTokenPreparator.isValidToken(tokens.accessToken) else {
                return .failure(
                    BaseServerError.invalidRequest(
                        "the refreshed access token is empty or holds characters an HTTP header cannot carry"))
            }
            return .success(tokens)
        }
    }
}
