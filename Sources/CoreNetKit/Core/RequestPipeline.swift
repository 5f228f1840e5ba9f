//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one-way path of a request: prepare, encode, send, validate, map.
struct RequestPipeline<Model: Sendable>: Sendable {
    let request: BaseServerRequest<Model>
    let configuration: NetworkConfiguration
    let requestId: String
    /// The cache work of this execution; set by `executeWithCache` (RequestPipeline+Cache).
    var cache: CacheSession<Model>? = nil
    /// Progress, scratch files and the download of this request.
    let transfer = RequestTransfer()

    func run(_ serverRequest: ServerRequest, broadcast: RequestBroadcast<Model>) async {
        transfer.connect { progress, direction in broadcast.emitProgress(progress, for: direction) }
        let events = CacheEvents<Model>(cached: broadcast.emitCache, servedFromCache: broadcast.markFromCache)
        let result = await complete(serverRequest, events: events)
        broadcast.finish(result)
    }

    /// Executes the request and then settles its transfer: scratch files removed, a download
    /// kept only on success. Cancelling the Task cancels the transfer at once.
    func complete(_ serverRequest: ServerRequest, events: CacheEvents<Model> = CacheEvents()) async -> Result<
        Model, any Error
    > {
        let result = await withTaskCancellationHandler {
            await execute(serverRequest, events: events)
        } onCancel: {
            transfer.cancel()
        }
        let succeeded = if case .success = result { !Task.isCancelled } else { false }
        transfer.finish(succeeded: succeeded)
        return result
    }

    func execute(_ serverRequest: ServerRequest, events: CacheEvents<Model> = CacheEvents()) async -> Result<
        Model, any Error
    > {
        if let result = await executeWithCache(serverRequest, events: events) { return result }
        do {
            let response = try await exchange(serverRequest)
            return .success(try await map(response))
        } catch {
            return .failure(error)
        }
    }

    /// One validated response for `serverRequest`.
    func exchange(_ serverRequest: ServerRequest) async throws -> ServerResponse {
        let response = try await roundTrip(serverRequest)
        try validate(response)
        return response
    }

    /// Prepares, encodes and sends `serverRequest`; the raw response, not yet validated. With an
    /// access manager, it adds the token and may refresh it and send once more.
    func roundTrip(_ serverRequest: ServerRequest) async throws -> ServerResponse {
        if let manager = configuration.accessManager, serverRequest.requiresAuthorization {
            return try await manager.roundTrip(serverRequest) { try await send(try await prepare($0)) }
        }
        return try await send(try await prepare(serverRequest))
    }

    /// Runs the preparators and encodes the result.
    func prepare(_ serverRequest: ServerRequest) async throws -> TransportRequest {
        var prepared = serverRequest
        for preparator in configuration.preparators {
            prepared = try await preparator.prepare(prepared)
        }
        return try await transfer.encode(prepared) { request in
            try RequestEncoder.encode(
                request, encoder: configuration.encoder, defaultTimeout: configuration.timeout,
                temporaryFiles: transfer.temporaryFiles)
        }
    }

    /// Sends through the transport, maps its failures once, and logs.
    func send(_ transportRequest: TransportRequest) async throws -> ServerResponse {
        var transportRequest = transportRequest
        if let cached = try await cacheBeforeSend(&transportRequest.urlRequest) { return cached }
        let logger = configuration.logger
        let urlRequest = transportRequest.urlRequest
        if let logger { logger.log(NetworkLogEntry.request(urlRequest, id: requestId, bodies: logger.includesBodies)) }
        let start = ContinuousClock.now
        do {
            let (raw, file) = try await transfer.send(transportRequest, through: configuration.transport)
            let response = ServerResponse(
                statusCode: raw.statusCode, headers: raw.headers, data: raw.body,
                request: urlRequest, url: raw.url, duration: ContinuousClock.now - start,
                downloadedFileURL: file)
            if let logger {
                logger.log(NetworkLogEntry.response(response, id: requestId, bodies: logger.includesBodies))
            }
            return cacheAfterSend(response)
        } catch {
            let mapped = TransportErrorMapper.map(error)
            if let logger {
                logger.log(
                    NetworkLogEntry.failure(
                        urlRequest, error: mapped, duration: ContinuousClock.now - start, id: requestId))
            }
            if let fallback = cacheFallback(for: mapped, request: urlRequest) { return fallback }
            throw mapped
        }
    }

    /// Runs the validators; a rejection goes through the error mappers first.
    func validate(_ response: ServerResponse) throws {
        for validator in configuration.validators {
            do {
                try validator.validate(response)
            } catch {
                for mapper in configuration.errorMappers {
                    if let mapped = mapper.map(response, validationError: error) { throw mapped }
                }
                throw error
            }
        }
    }

    /// Maps a validated response through the request's `handle`.
    func map(_ response: ServerResponse) async throws -> Model {
        var response = response
        response.decoder = configuration.decoder
        let handled = HandleResult<Model>()
        request.handle(serverResponse: response) { handled.complete($0) }
        // The default mapping completes synchronously: then no continuation, and no trip
        // through the executor that would cost a thread wake-up per request.
        let result = if let done = handled.completedResult { done } else { await handled.wait() }
        let model = try result.get()
        if cache != nil { await cacheStore(response) }
        return model
    }
}
