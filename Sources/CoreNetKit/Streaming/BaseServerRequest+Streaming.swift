//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension BaseServerRequest {
    /// This request's response as a stream the caller reads as it arrives instead of a model: byte chunks,
    /// ``ResponseStream/lines``, ``ResponseStream/jsonLines(of:decoder:)`` or ``ResponseStream/events`` (SSE).
    ///
    /// Nothing is sent until a loop starts reading; each loop sends the request once, built by
    /// ``createAsyncServerRequest()`` and sent with ``configuration`` through its whole chain (see ``ResponseStream``
    /// for the token, retry, deadline and cancellation rules). ``handle(serverResponse:)`` is not used. A request that
    /// can't be built throws its error from the first read. `idleTimeout` is how long the stream may be silent before
    /// it ends in ``BaseServerError/Code-swift.struct/timeout``; `nil` takes ``NetworkConfiguration/idleTimeout``, else
    /// ``ResponseStream/defaultIdleTimeout``.
    ///
    /// ```swift
    /// for try await entry in LogTailRequest(service: "api").stream().jsonLines(of: LogEntry.self) {
    ///     print(entry.message)
    /// }
    /// ```
    public func stream(idleTimeout: TimeInterval? = nil) -> ResponseStream {
        let request = Result { try createAsyncServerRequest() }.mapError(TransportErrorMapper.map)
        return ResponseStream(request: request, configuration: configuration, idleTimeout: idleTimeout)
    }
}

extension ServerRequest {
    /// This request's response as a stream the caller reads as it arrives: see
    /// ``BaseServerRequest/stream(idleTimeout:)`` and ``ResponseStream``.
    ///
    /// `configuration` defaults to ``NetworkConfiguration/default`` as it is now; `idleTimeout` `nil` takes the
    /// configuration's, else ``ResponseStream/defaultIdleTimeout``.
    public func stream(configuration: NetworkConfiguration = .default, idleTimeout: TimeInterval? = nil)
        -> ResponseStream
    {
        ResponseStream(request: .success(self), configuration: configuration, idleTimeout: idleTimeout)
    }
}
