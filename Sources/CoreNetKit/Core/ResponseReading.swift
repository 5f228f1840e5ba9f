//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The request's own mapping as the stages reach it through their InterceptorChain: to check
/// that a response reads, and to hand an early answer to the contexts' `onCacheSuccess`.
protocol ResponseReading: Sendable {
    /// Whether the request's mapping reads a model from `response`.
    func reads(_ response: ServerResponse) async -> Bool
    /// Maps `response` and hands the model to the contexts' `onCacheSuccess`; nothing when the
    /// mapping fails.
    func answerEarly(_ response: ServerResponse) async
}

/// The ResponseReading of one request of `Model`: its mapping, its decoder and, for
/// ``BaseServerRequest/perform()``, the broadcast to its contexts.
struct RequestReader<Model: Sendable>: ResponseReading {
    let request: BaseServerRequest<Model>
    let decoder: JSONDecoder
    let broadcast: RequestBroadcast?

    func reads(_ response: ServerResponse) async -> Bool {
        (try? await request.mapResponse(response, decoder: decoder)) != nil
    }

    func answerEarly(_ response: ServerResponse) async {
        guard let broadcast, let model = try? await request.mapResponse(response, decoder: decoder) else { return }
        broadcast.emitCache(model)
    }
}
