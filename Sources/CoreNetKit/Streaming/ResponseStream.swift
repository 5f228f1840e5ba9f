//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A response whose body the caller reads as it arrives: byte chunks with `for try await`, or ``lines``,
/// ``jsonLines(of:decoder:)`` and ``events`` built on them.
///
/// Make one with ``BaseServerRequest/stream(idleTimeout:)`` or ``ServerRequest/stream(configuration:idleTimeout:)``:
///
/// ```swift
/// for try await event in CompletionRequest(prompt: prompt).stream().events {
///     append(event.data)
/// }
/// ```
///
/// **One request per iteration.** Each `for try await` loop (each ``makeAsyncIterator()``) sends the request once,
/// through the configuration's whole chain: the token stage (a `401` before the body refreshes and replays), the
/// retry stage (only until the body's first byte reached the reader), validation and error mappers (a non-`2xx`
/// status throws what `perform()` would), the ``TaskPool`` and the monitors. The cache is never read or written.
///
/// **Backpressure.** The body is pulled as the loop asks: at most about 1 MiB waits for a slow reader, then the
/// pipeline stops pulling and `AsyncHTTPClientTransport` stops reading the socket, so memory stays bounded. On Linux
/// ``URLSessionTransport`` can't pause a transfer: the reader may fall ``URLSessionTransport/bodyBufferLimit`` × 64
/// behind before ``BaseServerError/Code-swift.struct/responseTooLarge`` (Apple platforms suspend the task instead).
///
/// **Deadline.** No total deadline unless ``ServerRequest/timeout`` sets one; instead, when nothing arrives for the
/// idle timeout (the `idleTimeout` passed, else ``NetworkConfiguration/idleTimeout``, else ``defaultIdleTimeout``),
/// the loop throws ``BaseServerError/Code-swift.struct/timeout``. Time the reader spends between reads doesn't count.
///
/// **Ending early.** Breaking out of the loop, cancelling its Task, or ``TaskPool/cancel(id:)`` closes the connection
/// at once and the request leaves the pool; a cancelled loop throws ``BaseServerError/Code-swift.struct/cancelled``.
public struct ResponseStream: AsyncSequence, Sendable {
    public typealias Element = Data

    /// The idle timeout of a stream whose configuration sets none: 60 seconds.
    public static let defaultIdleTimeout: TimeInterval = 60

    /// The request to send, or why it could not be built (thrown by the first read).
    var request: Result<ServerRequest, BaseServerError>
    let configuration: NetworkConfiguration

    init(
        request: Result<ServerRequest, BaseServerError>, configuration: NetworkConfiguration,
        idleTimeout: TimeInterval?
    ) {
        self.request = request.map { request in
            var request = request
            request.timeout = request.timeout ?? .infinity
            request.cachePolicy = .serverOnly
            return request
        }
        var configuration = configuration
        configuration.idleTimeout = idleTimeout ?? configuration.idleTimeout ?? Self.defaultIdleTimeout
        self.configuration = configuration
    }

    /// Sends the request and returns an iterator over its body's chunks.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(call: StreamCall(request: request, configuration: configuration))
    }

    var retryPolicy: RetryPolicy {
        (try? request.get().retryPolicy) ?? configuration.retryPolicy ?? RetryPolicy()
    }

    /// Reads a streamed body chunk by chunk. Dropping it before the end closes the connection.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let call: StreamCall

        /// The next body chunk as it arrived, `nil` at the end; throws the ``BaseServerError`` the request ended with.
        public mutating func next() async throws -> Data? {
            try await call.next()
        }
    }

    /// The same request with `value` for header `name` (a reconnection's `Last-Event-ID`).
    func adding(header name: String, value: String) -> ResponseStream {
        var copy = self
        copy.request = request.map { request in
            var request = request
            request.headers[name] = value
            return request
        }
        return copy
    }
}

/// One sending of a streamed request: started by the first ``next()``, cancelled when dropped.
final class StreamCall: Sendable {
    private enum Phase {
        case idle
        case waitingForHead(ResponseBodyStream)
        case streaming(ResponseBodyStream)
        case ended
    }

    private let request: Result<ServerRequest, BaseServerError>
    private let configuration: NetworkConfiguration
    private let phase = Locked(Phase.idle)

    init(request: Result<ServerRequest, BaseServerError>, configuration: NetworkConfiguration) {
        self.request = request
        self.configuration = configuration
    }

    deinit {
        switch phase.withLock({ $0 }) {
        case .waitingForHead(let stream), .streaming(let stream): stream.cancel()
        case .idle, .ended: break
        }
    }

    /// Any error ends the call.
    func next() async throws -> Data? {
        do {
            switch phase.withLock({ $0 }) {
            case .idle: return try await head(of: try start())
            case .waitingForHead(let stream): return try await head(of: stream)
            case .streaming(let stream): return try await chunk(of: stream)
            case .ended: return nil
            }
        } catch {
            phase.withLock { $0 = .ended }
            throw error
        }
    }

    private func start() throws -> ResponseBodyStream {
        var request = try self.request.get()
        let stream = ResponseBodyStream()
        request.responseBodyStream = stream
        let call = ServerResponseRequest(request, configuration: configuration)
        phase.withLock { $0 = .waitingForHead(stream) }
        stream.attach(
            Task {
                let result: Result<ServerResponse, any Error>
                do { result = .success(try await call.performAsync()) } catch { result = .failure(error) }
                stream.finish(result)
            })
        return stream
    }

    private func head(of stream: ResponseBodyStream) async throws -> Data? {
        switch try await stream.answer() {
        case .streaming:
            phase.withLock { $0 = .streaming(stream) }
            return try await chunk(of: stream)
        case .complete(let response):
            phase.withLock { $0 = .ended }
            return response.data.isEmpty ? nil : response.data
        }
    }

    private func chunk(of stream: ResponseBodyStream) async throws -> Data? {
        let chunk = try await stream.next()
        if chunk == nil { phase.withLock { $0 = .ended } }
        return chunk
    }
}

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
