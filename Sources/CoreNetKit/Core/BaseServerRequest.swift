//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A request contract: subclass it per endpoint to say how it is built and its response read; ``perform()`` runs it.
///
/// ```swift
/// final class GetOrderListRequest: BaseServerRequest<[Order]>, @unchecked Sendable {
///     private let skip: Int
///     init(skip: Int) { self.skip = skip }
///
///     override func createAsyncServerRequest() -> ServerRequest {
///         ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/orders",
///                       parameters: .query(["skip": .int(skip)]))
///     }
///     override var modelKeyPath: String? { "items" }
/// }
/// ```
///
/// Subclasses add only `let` properties of `Sendable` types and restate `@unchecked Sendable`. The default mapping
/// decodes a `Decodable` model (optionally under ``modelKeyPath``), returns ``EmptyResponse`` for empty bodies, the raw
/// body for `Data` and the text for `String`; override ``handle(serverResponse:)`` for anything else.
open class BaseServerRequest<Model: Sendable>: @unchecked Sendable {  // safe: subclasses hold only `let` Sendable state
    private let configurationOverride: NetworkConfiguration?

    /// Creates a request that uses `configuration`, or ``NetworkConfiguration/default`` when `nil`.
    public init(configuration: NetworkConfiguration? = nil) {
        self.configurationOverride = configuration
    }

    /// The configuration this request runs with.
    open var configuration: NetworkConfiguration {
        configurationOverride ?? .default
    }

    /// Describes the request to send; override it.
    ///
    /// The base implementation throws ``BaseServerError`` `invalidRequest`; a thrown error ends the request unsent.
    open func createAsyncServerRequest() throws -> ServerRequest {
        throw BaseServerError.invalidRequest("\(type(of: self)) does not override createAsyncServerRequest()")
    }

    /// The dot-separated key path the default mapping decodes the model under, for example
    /// `"response.items"`; `nil` decodes the whole body.
    open var modelKeyPath: String? { nil }

    /// Maps a validated response to the model: the override point for custom mapping.
    ///
    /// Called once per response, on the request's Task, after the validators accepted `serverResponse`; the default
    /// decodes `Model` (see the type's discussion). A thrown error ends the request with that error.
    ///
    /// ```swift
    /// override func handle(serverResponse: ServerResponse) throws -> Profile {
    ///     let dto = try JSONDecoder().decode(ProfileDTO.self, from: serverResponse.data)
    ///     return Profile(dto)
    /// }
    /// ```
    open func handle(serverResponse: ServerResponse) throws -> Model {
        try ModelDecoding.decode(
            Model.self, from: serverResponse, keyPath: modelKeyPath,
            decoder: serverResponse.decoder ?? configuration.decoder)
    }

    /// The mapping, awaited: the deprecated ``CallbackServerRequest`` overrides it to go through its callback form.
    func mapResponse(_ response: ServerResponse, decoder: JSONDecoder) async throws -> Model {
        try map(response, decoder: decoder)
    }

    /// Whether the pipeline awaits ``mapResponse(_:decoder:)`` (only the callback form) instead of ``map(_:decoder:)``.
    var mapsAsynchronously: Bool { false }

    /// The mapping without an async call: ``handle(serverResponse:)`` with `response` reading through `decoder` (a
    /// response from the transport already does: it is not copied then).
    final func map(_ response: ServerResponse, decoder: JSONDecoder) throws -> Model {
        guard response.decoder !== decoder else { return try handle(serverResponse: response) }
        var response = response
        response.decoder = decoder
        return try handle(serverResponse: response)
    }

    /// Starts the request and returns its context at once.
    ///
    /// The context delivers exactly one terminal event on the configuration's callback queue and keeps itself and this
    /// request alive until then. A request with the ``ServerRequest/requestId`` of one in flight joins it.
    public func perform() -> ActiveRequestContext<Model> {
        let configuration = configuration
        do {
            return perform(try createAsyncServerRequest(), configuration: configuration)
        } catch {
            return .failed(
                TransportErrorMapper.map(error), requestId: configuration.taskPool.generateId(),
                queue: configuration.callbackQueue)
        }
    }

    private func perform(
        _ serverRequest: consuming ServerRequest, configuration: NetworkConfiguration
    ) -> ActiveRequestContext<Model> {
        let pool = configuration.taskPool
        let context: ActiveRequestContext<Model>
        let broadcast: RequestBroadcast
        let isNew: Bool
        if let id = serverRequest.requestId {
            // A named request may join one in flight with the same id and model type.
            context = ActiveRequestContext<Model>(requestId: id, queue: configuration.callbackQueue)
            let joined = pool.joinOrRegister(
                id: id, request: serverRequest, startedAt: configuration.clock.currentDate,
                accepts: { $0.modelType == ObjectIdentifier(Model.self) },
                join: { $0.join(context.core) },
                make: {
                    RequestBroadcast(
                        id: id, modelType: ObjectIdentifier(Model.self), pool: pool, clock: configuration.clock,
                        first: context.core)
                })
            guard let member = joined.member else {
                context.emit(
                    error: BaseServerError.invalidRequest(
                        "a request with id \"\(id)\" and another model type is in flight"))
                return context
            }
            (broadcast, isNew) = (member, joined.isNew)
        } else {
            // An id made here is new, so nobody joins it: the pool keys it by its number. `made` carries the context
            // out: a tuple of it and the broadcast would have its metadata looked up at run time (generic model type).
            var made: ActiveRequestContext<Model>?
            broadcast = pool.registerGenerated(
                request: serverRequest, startedAt: configuration.clock.currentDate
            ) { id, number in
                let context = ActiveRequestContext<Model>(requestId: id, queue: configuration.callbackQueue)
                made = context
                let broadcast = RequestBroadcast(
                    id: id, modelType: ObjectIdentifier(Model.self), pool: pool, clock: configuration.clock,
                    first: context.core, poolNumber: number)
                return (broadcast, broadcast)
            }
            context = made!
            isNew = true
        }
        let id = broadcast.id
        context.core.setCancelAction(.leave(broadcast))
        if serverRequest.downloadDestination != nil || serverRequest.hasResumeData {
            context.core.resumeDataSource = { waiter in broadcast.whenEnded(waiter) }
        }
        if isNew {
            broadcast.start(
                // The Task consumes the request (its last use); the closure still copies it once for the pipeline.
                // Typed as throwing so `Task.init` need not wrap it (see `RequestBroadcast.start`).
                Task<Void, any Error> { [sending = consume serverRequest] in
                    let result = await run(sending, configuration: configuration, requestId: id, broadcast: broadcast)
                    broadcast.finish(result)
                })
        }
        return context
    }

    /// Runs `serverRequest` through the pipeline; a policy that reads the cache goes through `answerReadingCache`.
    private func run(
        _ serverRequest: consuming ServerRequest, configuration: consuming NetworkConfiguration, requestId: String,
        broadcast: RequestBroadcast?
    ) async -> ContextOutcome {
        guard serverRequest.cachePolicy == .serverOnly else {
            return await answerReadingCache(
                serverRequest, configuration: configuration, requestId: requestId, broadcast: broadcast)
        }
        return await RequestPipeline.run(
            self, serverRequest, configuration: consume configuration, requestId: requestId, broadcast: broadcast
        ).0
    }

    /// Runs the request and returns the model; cancelling the calling Task cancels the request.
    ///
    /// - Throws: the error the request ended with; ``BaseServerError`` `cancelled` when the Task was cancelled.
    public func performAsync() async throws -> Model {
        let configuration = configuration
        let serverRequest: ServerRequest
        do {
            serverRequest = try createAsyncServerRequest()
        } catch {
            throw TransportErrorMapper.map(error)
        }
        if serverRequest.requestId != nil {
            // A named request may join one in flight: that needs the shared context path.
            return try await perform(consume serverRequest, configuration: configuration).value
        }
        // A generated id is unique: the pipeline runs here in the caller's Task, without a Task or continuation.
        let pool = configuration.taskPool
        let member = withUnsafeCurrentTask { InlineRequest(task: $0) }
        let (id, number) = pool.registerGenerated(
            request: serverRequest, startedAt: configuration.clock.currentDate
        ) { id, number in ((id, number), member) }
        defer { pool.removeGenerated(number) }
        let result = await run(
            consume serverRequest, configuration: consume configuration, requestId: id, broadcast: nil)
        member.detach()
        if Task.isCancelled {
            var cancelled = BaseServerError.cancelled
            cancelled.resumeData = result.resumeData
            throw cancelled
        }
        switch result {
        case .success(let model, _): return model as! Model  // safe: the pipeline of a request of `Model` made it
        case .failure(let error): throw error
        case .cancelled: throw BaseServerError.cancelled
        }
    }
}

/// A request whose model is the response itself, for adapters that read the response on their own (the OpenAPI client
/// transport, a streamed response, an outbox whose model the kind's registration decodes later).
final class ServerResponseRequest: BaseServerRequest<ServerResponse>, @unchecked Sendable {  // safe: only a `let` value
    private let request: ServerRequest

    init(_ request: ServerRequest, configuration: NetworkConfiguration) {
        self.request = request
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() throws -> ServerRequest { request }
    override func handle(serverResponse: ServerResponse) throws -> ServerResponse { serverResponse }
}
