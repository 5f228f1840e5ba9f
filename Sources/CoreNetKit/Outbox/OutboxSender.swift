//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Sends one entry through the configuration's whole pipeline — preparators, the token stage,
/// the retry stage with the outbox's policy, validators, monitors, logs — and decides what its
/// answer means for the entry.
struct OutboxSender: Sendable {
    let configuration: NetworkConfiguration
    let options: Outbox.Options

    /// Sends with `configuration` less its error mappers: what is stored and delivered is a
    /// ``BaseServerError`` with the status and body of the answer, which an app's own error type
    /// would hide (and could not be stored).
    init(configuration: NetworkConfiguration, options: Outbox.Options) {
        var configuration = configuration
        if !configuration.errorMappers.isEmpty { configuration.errorMappers = [] }
        self.configuration = configuration
        self.options = options
    }

    /// What an answer means for an entry.
    enum Decision: Sendable, Equatable {
        /// Record this and deliver the outcome.
        case settle(OutboxSettlement)
        /// Leave the entry as it is: sending was cancelled (the outbox stopped), or the entry
        /// left the pending list before anything was sent (another process settled it).
        case keep
        /// Leave the entry pending and its queue waiting: the credentials were refused and no
        /// refresh helped, so every entry would fail the same way until the user signs in again.
        case hold
        /// Leave the entry pending and its queue waiting: the store could not record an attempt,
        /// so nothing was sent.
        case stall
    }

    /// Sends `entry` (with the retry stage's attempts that `entry.attempts` leaves) and decides.
    ///
    /// Each attempt is first counted with `recordAttempts`, before its request goes out; a
    /// send held for its credentials gives its attempts back. An entry that already used the
    /// policy's attempts, in this process or in others, is not sent again but fails.
    func send(
        _ entry: OutboxEntry, recordAttempts: @escaping @Sendable (Int) async throws -> Void
    ) async -> Decision {
        let bound = max(1, options.retryPolicy.maximumAttempts)
        guard entry.attempts < bound else {
            return .settle(.failed(OutboxFailure(Self.attemptsExhausted(entry.attempts))))
        }
        var policy = options.retryPolicy
        policy.maximumAttempts = bound - entry.attempts
        var configuration = configuration
        configuration.interceptors.insert(
            AttemptStage(before: entry.attempts, record: recordAttempts), after: RetryInterceptor.self)
        let request = entry.request.serverRequest(idempotencyKey: entry.idempotencyKey, retryPolicy: policy)
        do {
            let response = try await ServerResponseRequest(request, configuration: configuration).performAsync()
            return .settle(.succeeded(OutboxResponse(statusCode: response.statusCode, body: response.data)))
        } catch {
            let error = error as? BaseServerError ?? TransportErrorMapper.map(error)
            if let unrecorded = error.underlyingError as? AttemptStage.Unrecorded {
                // Nothing was sent: the entry left the pending list meanwhile, or the store failed.
                return (unrecorded.error as? BaseServerError)?.code == .cancelled ? .keep : .stall
            }
            let decision = Self.decide(error, cancelled: Task.isCancelled)
            if decision == .hold { try? await recordAttempts(entry.attempts) }
            return decision
        }
    }

    /// The error of an entry that used every attempt the policy allows without an answer that
    /// settled it: the last were cut short (the process died or the outbox stopped).
    static func attemptsExhausted(_ attempts: Int) -> BaseServerError {
        BaseServerError(
            code: .transport,
            message: "the outbox gave up after \(attempts) attempts, the most its retry policy allows "
                + "(counted across restarts); the last ended without an answer")
    }

    /// The decision for a failure: kept when sending was cancelled, held when the credentials
    /// were refused, failed otherwise — a status that will not pass (a `4xx` other than `401`,
    /// `408` and `429`), or a failure that could pass but outlasted the retry policy's attempts.
    static func decide(_ error: BaseServerError, cancelled: Bool) -> Decision {
        if cancelled || error.code == .cancelled { return .keep }
        if [.unauthorized, .tokenRefreshFailed, .excessiveRefresh].contains(error.code) || error.statusCode == 401 {
            return .hold
        }
        return .settle(.failed(OutboxFailure(error)))
    }

    /// The outcome of a settled entry: its model decoded by its kind's registration, or its error.
    static func outcome(of entry: OutboxEntry, kind: OutboxKind?, decoder: JSONDecoder) -> OutboxOutcome {
        let result: Result<any Sendable, BaseServerError>
        if let failure = entry.failure {
            result = .failure(failure.error)
        } else {
            let stored = entry.response ?? OutboxResponse(statusCode: 200, body: Data())
            let request = entry.request.serverRequest(idempotencyKey: entry.idempotencyKey, retryPolicy: .never)
            let response = ServerResponse(statusCode: stored.statusCode, data: stored.body, for: request)
            do {
                result = .success(try kind.map { try $0.decode(response, decoder) } ?? response)
            } catch {
                result = .failure(TransportErrorMapper.map(error))
            }
        }
        return OutboxOutcome(id: entry.id, kind: entry.kind, queue: entry.queue, result: result)
    }
}

extension OutboxSender {
    /// The stage that counts an entry's attempts: right after the retry stage, so it runs once
    /// per attempt and before anything of the attempt goes out. It records the entry's attempts
    /// so far, this one included, and fails the attempt (without sending) when that cannot be
    /// recorded.
    struct AttemptStage: Interceptor {
        /// Why an attempt was not made.
        struct Unrecorded: Error {
            let error: any Error
        }

        /// The attempts before this send.
        let before: Int
        let record: @Sendable (Int) async throws -> Void

        func intercept(_ request: consuming ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
            do {
                try await record(before + request.attempt)
            } catch {
                throw BaseServerError(
                    code: .fileAccess, message: "the outbox could not count an attempt",
                    underlyingError: Unrecorded(error: error))
            }
            return try await next.proceed(request)
        }
    }
}
