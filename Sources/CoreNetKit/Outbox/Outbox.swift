//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

/// Changes that must not be lost: requests written to durable storage before anything is sent,
/// then sent through the usual pipeline, each queue in order, until the server has answered —
/// across lost connections, timeouts and restarts of the process.
///
/// ```swift
/// let outbox = Outbox(store: try FileOutboxStore(url: journalURL), configuration: configuration)
/// outbox.register("like", as: Like.self) { id, result in updateBadge(id, result) }   // at start-up
/// outbox.start()
///
/// let id = try await outbox.enqueue(
///     ServerRequest(method: .post, baseUrl: api, relativeUrl: "/posts/7/likes"), kind: "like", queue: "posts")
/// ```
///
/// Each entry gets an `Idempotency-Key` when it is queued (or keeps the one its request
/// carries), stored with it and sent on every attempt, so a server that honours the key applies
/// the change once even when an answer is lost or the process dies between sending and
/// recording. A failure that can pass is retried by the retry stage with ``Options/retryPolicy``,
/// whose attempts are counted across restarts (``OutboxEntry/attempts``); a status that will not
/// pass (a `4xx` other than `401`, `408` and `429`) moves the entry to the failed list with the
/// server's answer. The configuration's error mappers are not applied: an
/// outcome's error is a ``BaseServerError`` with the status and body of the answer, what is
/// stored. Nothing stored holds a credential: requests that carry
/// one are refused at ``enqueue(_:kind:queue:)-(ServerRequest,_,_)``; the token stage and preparators add them when
/// the request is sent.
///
/// Every method is thread-safe. See <doc:OfflineChanges>.
public final class Outbox: Sendable {
    /// Where the entries are kept.
    public let store: any OutboxStore
    /// The configuration every entry is sent with.
    public let configuration: NetworkConfiguration
    /// How the outbox sends.
    public let options: Options

    struct State {
        var kinds: [String: OutboxKind] = [:]
        var streams: [Int: AsyncStream<OutboxOutcome>.Continuation] = [:]
        var nextStream = 0
        var runner: Task<Void, Never>?
    }

    let state = Locked(State())
    let wakeup = OutboxWakeup()

    /// Creates an outbox on `store`; it sends nothing until ``start()``.
    ///
    /// - Parameters:
    ///   - store: where the entries are kept, for example a ``FileOutboxStore``.
    ///   - configuration: the configuration every entry is sent with (transport, preparators,
    ///     token manager, monitors, clock); ``NetworkConfiguration/default`` when `nil`.
    ///   - options: how hard and how widely it sends.
    public init(store: any OutboxStore, configuration: NetworkConfiguration? = nil, options: Options = Options()) {
        self.store = store
        self.configuration = configuration ?? .default
        self.options = options
    }

    /// Says which model the answers of `kind` decode to and, optionally, who is told: call it
    /// when the app starts, before ``start()``, for every kind it queues (a registration made
    /// later applies to outcomes delivered after it).
    ///
    /// - Parameters:
    ///   - kind: the name entries are queued with.
    ///   - type: the model, decoded from the answer's body with the configuration's decoder.
    ///   - keyPath: the dot-separated key path to decode under, as ``BaseServerRequest/modelKeyPath``.
    ///   - handler: called once per settled entry of `kind`, on ``Options/callbackQueue`` (the
    ///     configuration's callback queue by default), with the entry's identifier and the model
    ///     or the error; see ``OutboxOutcome`` for when an outcome is delivered again after a restart.
    public func register<Model: Decodable & Sendable>(
        _ kind: String, as type: Model.Type = Model.self, keyPath: String? = nil,
        handler: (@Sendable (OutboxEntry.ID, Result<Model, BaseServerError>) -> Void)? = nil
    ) {
        register(
            kind,
            map: { response in
                try ModelDecoding.decode(
                    Model.self, from: response, keyPath: keyPath, decoder: response.decoder ?? JSONDecoder())
            }, handler: handler)
    }

    /// Says how the answers of `kind` map to a model, and optionally who is told; as
    /// ``register(_:as:keyPath:handler:)`` with a mapping of your own.
    ///
    /// - Parameters:
    ///   - kind: the name entries are queued with.
    ///   - map: turns the stored answer (status and body) into the model; what it throws is
    ///     the outcome's error.
    ///   - handler: called once per settled entry of `kind`, on ``Options/callbackQueue``.
    public func register<Model: Sendable>(
        _ kind: String, map: @escaping @Sendable (ServerResponse) throws -> Model,
        handler: (@Sendable (OutboxEntry.ID, Result<Model, BaseServerError>) -> Void)? = nil
    ) {
        let decode: @Sendable (ServerResponse, JSONDecoder) throws -> any Sendable = { response, decoder in
            var response = response
            response.decoder = decoder
            return try map(response)
        }
        var deliver: (@Sendable (OutboxOutcome) -> Void)?
        if let handler {
            deliver = { outcome in
                let result: Result<Model, BaseServerError> = Self.typed(outcome.result)
                handler(outcome.id, result)
            }
        }
        let registration = OutboxKind(decode: decode, handler: deliver)
        state.withLock { $0.kinds[kind] = registration }
    }

    /// `result` with the model as `Model`.
    private static func typed<Model>(_ result: Result<any Sendable, BaseServerError>) -> Result<Model, BaseServerError>
    {
        switch result {
        case .success(let model):
            guard let model = model as? Model else {
                return .failure(.cantMapping(keyPath: "<root>", reason: "the model is a \(type(of: model))"))
            }
            return .success(model)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Every outcome delivered from now on, in the order the entries settled.
    ///
    /// The sequence buffers what its reader has not read yet. It ends when ``stop()`` is called
    /// or when the Task reading it is cancelled.
    public func outcomes() -> AsyncStream<OutboxOutcome> {
        let (stream, continuation) = AsyncStream<OutboxOutcome>.makeStream()
        let id = state.withLock { state -> Int in
            state.nextStream += 1
            state.streams[state.nextStream] = continuation
            return state.nextStream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Writes `request` to the store and returns its identifier; it is sent once the outbox is
    /// started, after the entries queued before it in `queue`.
    ///
    /// - Parameters:
    ///   - request: the request; its cache policy, request id and retry policy are not used.
    ///   - kind: the name the app maps to a model type (``register(_:as:keyPath:handler:)``).
    ///   - queue: entries of one queue are sent one at a time, in order; `"default"` by default.
    /// - Returns: the entry's identifier, for ``cancel(_:)`` and the outcome.
    /// - Throws: ``BaseServerError`` `invalidRequest` when the request carries a credential or
    ///   something that cannot be stored (see ``OutboxRequest``), `outboxFull` when the store is
    ///   full, `fileAccess` (or the store's error) when it cannot be written.
    @discardableResult
    public func enqueue(_ request: ServerRequest, kind: String, queue: String = "default") async throws
        -> OutboxEntry.ID
    {
        let stored = try OutboxRequest(request, encoder: configuration.encoder)
        let entry = OutboxEntry(
            id: OutboxEntry.ID(UUID().uuidString), kind: kind, queue: queue,
            idempotencyKey: stored.ownIdempotencyKey ?? UUID().uuidString,
            enqueuedAt: configuration.clock.currentDate, request: stored)
        try await store.add(entry)
        wakeup.bump()
        return entry.id
    }

    /// Queues the request `request` describes (``BaseServerRequest/createAsyncServerRequest()``),
    /// as ``enqueue(_:kind:queue:)-(ServerRequest,_,_)``.
    ///
    /// - Throws: what `createAsyncServerRequest()` throws, or what ``enqueue(_:kind:queue:)-(ServerRequest,_,_)`` does.
    @discardableResult
    public func enqueue<Model>(_ request: BaseServerRequest<Model>, kind: String, queue: String = "default")
        async throws -> OutboxEntry.ID
    {
        let serverRequest: ServerRequest
        do {
            serverRequest = try request.createAsyncServerRequest()
        } catch {
            throw TransportErrorMapper.map(error)
        }
        return try await enqueue(serverRequest, kind: kind, queue: queue)
    }

    /// The entries waiting to be sent (or being sent), oldest first.
    public func pending() async throws -> [OutboxEntry] { try await store.entries(in: .pending) }

    /// The entries that failed, oldest first, each with its ``OutboxEntry/failure``.
    public func failed() async throws -> [OutboxEntry] { try await store.entries(in: .failed) }

    /// How many entries wait to be sent: for a "3 changes waiting" badge.
    public func count() async throws -> Int { try await store.count(in: .pending) }

    /// Removes a pending entry that is not being sent now, or a failed one.
    ///
    /// - Returns: whether it was removed; `false` for an entry being sent (it may already have
    ///   reached the server) or one the store does not hold.
    @discardableResult
    public func cancel(_ id: OutboxEntry.ID) async throws -> Bool {
        let removed = try await store.remove(id)
        if removed { wakeup.bump() }
        return removed
    }
}
