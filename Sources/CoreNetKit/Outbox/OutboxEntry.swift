//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One queued change of an ``Outbox``: the stored request, its kind and queue, and the
/// `Idempotency-Key` it is sent with on every attempt.
public struct OutboxEntry: Sendable, Hashable, Codable, Identifiable {
    /// An entry's identifier: what ``Outbox/enqueue(_:kind:queue:)-(ServerRequest,_,_)`` returns and every outcome carries.
    public struct ID: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The identifier's text (a UUID unless a store says otherwise).
        public let rawValue: String
        /// Wraps `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
    }

    /// Where an entry is.
    public enum State: String, Sendable, Hashable, Codable {
        /// Waiting to be sent, or being sent.
        case pending
        /// Sent and answered with a status that will not pass, or given up after the retry
        /// policy's attempts: kept, with ``OutboxEntry/failure``, until cancelled.
        case failed
        /// Answered with success; its outcome has not been delivered yet (it is after a restart).
        case succeeded
    }

    /// The entry's identifier.
    public let id: ID
    /// The name the app maps to a model type when it starts (``Outbox/register(_:as:keyPath:handler:)``).
    public let kind: String
    /// The queue: entries of one queue are sent one at a time, in the order they were queued.
    public let queue: String
    /// The `Idempotency-Key` header value sent on every attempt.
    public let idempotencyKey: String
    /// When the entry was queued (the configuration's clock).
    public let enqueuedAt: Date
    /// The request as stored.
    public let request: OutboxRequest
    /// Where the entry is.
    public internal(set) var state: State
    /// Why a ``State/failed`` entry failed: the status and body of the answer, or the error.
    public internal(set) var failure: OutboxFailure?
    /// A ``State/succeeded`` entry's answer, kept until its outcome is delivered.
    public internal(set) var response: OutboxResponse?
    /// How many times the entry was sent, or began to be, by every process that sent it: each
    /// attempt is counted before its request goes out, so one cut short by a crash counts too.
    /// Once it reaches the retry policy's ``RetryPolicy/maximumAttempts``, the entry is not sent
    /// again but goes to the failed list. `0` in a store that keeps no count.
    public internal(set) var attempts: Int

    init(id: ID, kind: String, queue: String, idempotencyKey: String, enqueuedAt: Date, request: OutboxRequest) {
        self.id = id
        self.kind = kind
        self.queue = queue
        self.idempotencyKey = idempotencyKey
        self.enqueuedAt = enqueuedAt
        self.request = request
        self.state = .pending
        self.attempts = 0
    }

    private enum CodingKeys: String, CodingKey {
        case id, kind, queue, idempotencyKey, enqueuedAt, request, state, failure, response, attempts
    }

    /// Reads an entry; one stored before attempts were counted has made none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ID.self, forKey: .id)
        kind = try container.decode(String.self, forKey: .kind)
        queue = try container.decode(String.self, forKey: .queue)
        idempotencyKey = try container.decode(String.self, forKey: .idempotencyKey)
        enqueuedAt = try container.decode(Date.self, forKey: .enqueuedAt)
        request = try container.decode(OutboxRequest.self, forKey: .request)
        state = try container.decode(State.self, forKey: .state)
        failure = try container.decodeIfPresent(OutboxFailure.self, forKey: .failure)
        response = try container.decodeIfPresent(OutboxResponse.self, forKey: .response)
        attempts = try container.decodeIfPresent(Int.self, forKey: .attempts) ?? 0
    }

    /// The entry's ``State/failed`` or ``State/succeeded`` form.
    func settled(_ settlement: OutboxSettlement) -> OutboxEntry {
        var entry = self
        switch settlement {
        case .succeeded(let response):
            entry.state = .succeeded
            entry.response = response
        case .failed(let failure):
            entry.state = .failed
            entry.failure = failure
        }
        return entry
    }
}

/// The answer to a sent entry, as stored: the status and body (never a header: a response's
/// `Set-Cookie` stays out of storage).
public struct OutboxResponse: Sendable, Hashable, Codable {
    /// The HTTP status.
    public let statusCode: Int
    /// The body.
    public let body: Data

    /// Wraps a status and a body.
    public init(statusCode: Int, body: Data) {
        self.statusCode = statusCode
        self.body = body
    }
}

/// Why an entry failed.
public struct OutboxFailure: Sendable, Hashable, Codable {
    /// The error code's name (``BaseServerError/Code-swift.struct/description``), for example `badStatus`.
    public let code: String
    /// The status the server answered, if it answered.
    public let statusCode: Int?
    /// The body of that answer.
    public let body: Data?
    /// A description of the failure.
    public let message: String

    init(_ error: BaseServerError) {
        code = error.code.description
        statusCode = error.statusCode
        body = error.body
        let cause = error.underlyingError.map { " (\($0))" } ?? ""
        message = (error.message ?? error.errorDescription ?? error.code.description) + cause
    }

    /// The failure as the error an outcome carries.
    var error: BaseServerError {
        BaseServerError(
            code: Self.codes[code] ?? .transport, statusCode: statusCode, body: body, message: message)
    }

    private static let codes: [String: BaseServerError.Code] = Dictionary(
        uniqueKeysWithValues: [
            BaseServerError.Code.noInternetConnection, .cannotConnect, .connectionLost, .timeout, .cancelled,
            .transport, .cantMapping, .badStatus, .server, .invalidRequest, .unauthorized, .tokenRefreshFailed,
            .excessiveRefresh, .cacheMiss, .fileAccess, .responseTooLarge, .repeatedCursor, .serverTrust, .outboxFull,
        ].map { ($0.description, $0) })
}
