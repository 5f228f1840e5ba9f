//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

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
