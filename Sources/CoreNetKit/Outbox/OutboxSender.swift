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
        /// Leave the entry pending: sending was cancelled (the outbox stopped).
        case keep
        /// Leave the entry pending and its queue waiting: the credentials were refused and no
        /// refresh helped, so every entry would fail the same way until the user signs in again.
        case hold
    }

    /// Sends `entry` once (with the retry stage's attempts) and decides.
    func send(_ entry: OutboxEntry) async -> Decision {
        let request = entry.request.serverRequest(
            idempotencyKey: entry.idempotencyKey, retryPolicy: options.retryPolicy)
        do {
            let response = try await ServerResponseRequest(request, configuration: configuration).performAsync()
            return .settle(.succeeded(OutboxResponse(statusCode: response.statusCode, body: response.data)))
        } catch {
            return Self.decide(
                error as? BaseServerError ?? TransportErrorMapper.map(error), cancelled: Task.isCancelled)
        }
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
