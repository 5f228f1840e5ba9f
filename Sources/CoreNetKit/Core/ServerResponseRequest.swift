//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

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
