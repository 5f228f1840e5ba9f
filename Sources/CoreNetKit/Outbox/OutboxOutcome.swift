//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What became of one queued change: its identifier, and the decoded model or the error.
///
/// Delivered to the handler of the entry's kind and to every ``Outbox/outcomes()`` sequence, once
/// per entry in the process that settles it — or, when a process stopped between the answer and
/// the delivery, once more by the next process that starts the outbox on the same store.
public struct OutboxOutcome: Sendable {
    /// The entry.
    public let id: OutboxEntry.ID
    /// The entry's kind.
    public let kind: String
    /// The entry's queue.
    public let queue: String
    /// The model the kind's registration decoded (``ServerResponse`` for a kind nobody
    /// registered), or why the change failed: a ``BaseServerError`` with the status and body of
    /// the server's answer, or `cantMapping` when an applied change's answer could not be decoded.
    public let result: Result<any Sendable, BaseServerError>

    /// The model as `Model`, when the change succeeded and its model is one.
    public func model<Model>(as type: Model.Type = Model.self) -> Model? {
        guard case .success(let model) = result else { return nil }
        return model as? Model
    }

    /// The error, when the change failed.
    public var error: BaseServerError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }
}

/// How the outbox turns the answer of a kind into its model, and whom it tells.
struct OutboxKind: Sendable {
    let decode: @Sendable (ServerResponse, JSONDecoder) throws -> any Sendable
    let handler: (@Sendable (OutboxOutcome) -> Void)?
}
