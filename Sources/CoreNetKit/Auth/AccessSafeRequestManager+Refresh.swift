//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

extension AccessSafeRequestManager {
    /// The manager whose refresh this Task runs; the refresher's Tasks inherit it, so its requests skip that manager.
    @TaskLocal static var refreshing: ObjectIdentifier?

    /// Runs `job` in its own Task with a timeout; its end resumes the queue. With a ``SharedTokenStore`` it runs under
    /// the store's refresh lock, and the timeout grows by its lease (another process may hold the lock so long).
    func run(_ job: Job) {
        let manager = ObjectIdentifier(self)
        let (store, isSessionExpired) = state.withLock { ($0.store, $0.machine.options.isSessionExpired) }
        let shared = store as? any SharedTokenStore
        let work = Task {
            do {
                let tokens = try await Self.$refreshing.withValue(manager) {
                    guard let shared else { return try await job.refresh() }
                    return try await Self.refresh(job, sharedThrough: shared, isSessionExpired: isSessionExpired)
                }
                self.finish(job.id, with: .success(tokens), stored: shared != nil)
            } catch {
                self.finish(job.id, with: .failure(error), stored: shared != nil)
            }
        }
        let limit = shared.map { job.timeout + min(max($0.lease, .zero), .seconds(86_400)) } ?? job.timeout
        let timer = Task {
            do { try await job.clock.pause(for: limit) } catch { return }  // cancelled: the refresh ended first
            let timeout = BaseServerError(
                code: .timeout, message: "the token refresh did not finish within \(limit)")
            // Decide the timeout before cancelling, or the refresh may end first as `cancelled`: the wrong cause.
            self.finish(job.id, with: .failure(timeout))
            work.cancel()
        }
        if !state.withLock({ $0.machine.setTimer(timer, for: job.id) }) { timer.cancel() }
    }

    /// The refresh of `job` with a store other processes share: under the store's refresh lock, refresh only when the
    /// stored tokens are still `job.tokens` (the rejected ones) and their session did not end; otherwise take what
    /// another process stored. New tokens, or the end of the session, are written before the lock is released.
    static func refresh(
        _ job: Job, sharedThrough store: any SharedTokenStore,
        isSessionExpired: @escaping @Sendable (any Error) -> Bool
    ) async throws -> AuthTokens {
        let outcome: Result<AuthTokens, any Error> = try await store.withRefreshLock { stored in
            guard let current = stored.tokens, current.accessToken == job.tokens.accessToken,
                current.refreshToken == job.tokens.refreshToken, !stored.isSessionEnded
            else {
                // Another process refreshed, signed in or out, or had their refresh refused meanwhile.
                guard let other = stored.tokens, !stored.isSessionEnded else {
                    return (nil, .failure(BaseServerError.sessionEndedElsewhere(signedOut: stored.tokens == nil)))
                }
                return (nil, .success(other))
            }
            do {
                var new = try await job.refresh()
                if new.refreshToken == nil { new.refreshToken = job.tokens.refreshToken }
                _ = try State<Waiter>.validated(new).get()
                return (SharedTokens(tokens: new), .success(new))
            } catch {
                // A refusal that ends the session is written down, so no process sends this refresh token again; a
                // connection problem leaves the entry as it is.
                let ended = !(error is CancellationError) && isSessionExpired(error)
                return (ended ? SharedTokens(tokens: current, isSessionEnded: true) : nil, .failure(error))
            }
        }
        return try outcome.get()
    }

    /// Ends refresh `id`: saves new tokens (unless a shared store `stored` them), resumes waiters, reports the end.
    func finish(_ id: Int, with result: Result<AuthTokens, any Error>, stored: Bool = false) {
        let taken = state.withLock { state in
            state.machine.finish(id, with: result).map {
                ($0, state.store, state.expiredHandlers, state.machine.options)
            }
        }
        guard let (finished, store, handlers, options) = taken else { return }
        finished.timer?.cancel()
        if let persist = finished.persist, !stored {
            self.persist(persist.tokens, version: persist.version, to: store)
        }
        // Queue the session end before resuming waiters, so the app hears it before their failures, and whoever awaits
        // every request and then drains the callback queue sees it.
        if let cause = finished.cause, case .failure(let error) = finished.result, !handlers.isEmpty,
            options.isSessionExpired(cause)
        {
            options.callbackQueue.async { for handler in handlers { handler(error) } }
        }
        let outcome = finished.result.mapError { $0 as any Error }
        for waiter in finished.waiters { waiter.resume(with: outcome) }
    }

    /// Reports a session end that is not a failed refresh — refreshing refused as excessive, or the renewed token
    /// rejected again — once for the tokens of `version`.
    func reportSessionEnd(_ error: BaseServerError, version: Int) {
        let taken = state.withLock { state -> ([@Sendable (BaseServerError) -> Void], DispatchQueue)? in
            if let last = state.lastEnding, last.code == error.code, last.version == version { return nil }
            state.lastEnding = (error.code, version)
            return (state.expiredHandlers, state.machine.options.callbackQueue)
        }
        guard let (handlers, queue) = taken, !handlers.isEmpty else { return }
        queue.async { for handler in handlers { handler(error) } }
    }

    /// Writes `tokens` to `store` unless a newer version was written already.
    func persist(_ tokens: AuthTokens?, version: Int, to store: any TokenStore) {
        written.withLock { last in  // held during the write only to keep writes in version order
            guard version > last else { return }
            last = version
            store.save(tokens)
        }
    }

    // MARK: Test hooks

    var waitingCount: Int { state.withLock { $0.machine.waitingCount } }

    /// Returns once at least `count` requests wait for a refresh, or the calling Task is cancelled. A test hook (the
    /// fleet's child processes use it), not API.
    @_spi(Testing) public func waitUntilWaiting(_ count: Int) async {
        let id = state.withLock { $0.makeWaiterId() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if state.machine.waitingCount >= count || Task.isCancelled { return true }
                    state.watchers[id] = (count, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
