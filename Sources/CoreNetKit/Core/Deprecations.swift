//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A ``BaseServerRequest`` that maps its response through the older callback form,
/// ``handle(serverResponse:completion:)``: the one place that form lives. A subclass that overrides the callback form
/// changes its superclass to this one and keeps its override as it is:
/// ```swift
/// final class HashedDownloadRequest: CallbackServerRequest<HashedDownload>, @unchecked Sendable {
///     override func handle(
///         serverResponse: ServerResponse, completion: @escaping @Sendable (ResponseResult<HashedDownload>) -> Void
///     ) { … }
/// }
/// ```
@available(*, deprecated, message: "subclass BaseServerRequest and override handle(serverResponse:) throws -> Model")
open class CallbackServerRequest<Model: Sendable>: BaseServerRequest<Model>, @unchecked Sendable {
    // safe: like BaseServerRequest, it adds no state; subclasses hold only `let` Sendable state
    /// Maps a validated response to the model and reports it through `completion`.
    ///
    /// Called once per response, on the request's Task, after the validators accepted `serverResponse`. Call
    /// `completion` exactly once, from any thread; later calls are ignored. A ``ResponseResult/failure(_:)`` ends the
    /// request with that error; the `fromCache` flag is ignored (the pipeline sets ``ServerResponse/isFromCache``). The
    /// default calls ``BaseServerRequest/handle(serverResponse:)`` and completes at once.
    open func handle(serverResponse: ServerResponse, completion: @escaping @Sendable (ResponseResult<Model>) -> Void) {
        do {
            completion(.success(try handle(serverResponse: serverResponse), fromCache: serverResponse.isFromCache))
        } catch {
            completion(.failure(error))
        }
    }

    override var mapsAsynchronously: Bool { true }

    /// Runs the callback form once and waits for its first result, without suspending when it completes synchronously.
    override func mapResponse(_ response: ServerResponse, decoder: JSONDecoder) async throws -> Model {
        var response = response
        response.decoder = decoder
        let mapped = OneShot<Model>()
        handle(serverResponse: response) { result in mapped.resume(Result { try result.get() }) }
        return try await mapped.value
    }
}

/// What the mapping of a request produces from a response: the result the pipeline hands to
/// the contexts, and what ``CallbackServerRequest/handle(serverResponse:completion:)`` reports.
public enum ResponseResult<Model: Sendable>: Sendable {
    /// The model; `fromCache` says whether it was read from the cache rather than the server.
    case success(Model, fromCache: Bool)
    /// The failure.
    case failure(any Error)

    /// The model, or the error thrown.
    public func get() throws -> Model {
        switch self {
        case .success(let model, _): return model
        case .failure(let error): throw error
        }
    }

    /// Whether the result is a model read from the cache.
    public var isFromCache: Bool { if case .success(_, let fromCache) = self { fromCache } else { false } }
}
