//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One request through AsyncHTTPClient's delegate API: the head goes to the sender's Task
/// through a continuation, the body through a ``BodyBuffer`` the pipeline pulls.
///
/// Why not `HTTPClient.execute(_:deadline:)`: that API can only be cancelled by cancelling the
/// Task that awaits it, so the pipeline had to run every exchange in a Task of its own for its
/// deadline to end it. An `HTTPClient.Task` can be cancelled from anywhere (``cancel()``), so
/// the exchange runs in the caller's Task, as it does on ``URLSessionTransport``: no Task, no
/// hop and no frames of a second Task per request.
///
/// Backpressure: when more than `bufferLimit` bytes wait for the reader, the future returned
/// for the last body part is held until the reader has taken them down to half, and
/// AsyncHTTPClient stops reading the socket meanwhile. When the reader goes away before the
/// end, the request is cancelled (its connection closed).
///
/// All state is behind one lock; continuations, promises and cancellations run after it.
final class AsyncHTTPClientExchange: HTTPClientResponseDelegate {
    typealias Response = Void

    private struct State {
        /// Waits for the head; `nil` once resumed.
        var head: CheckedContinuation<TransportResponse, any Error>?
        /// The request in AsyncHTTPClient, once it was made and until it ended.
        var task: HTTPClient.Task<Void>?
        /// Cancelled before the request was made, or while it ran.
        var cancelled = false
        /// The body's buffer, from the head until the request ended.
        var buffer: BodyBuffer?
        /// Held while the reader is behind: AsyncHTTPClient reads no more until it completes.
        var paused: EventLoopPromise<Void>?
        /// Set when the reader fell behind; `paused` is made for the next body part.
        var pauseRequested = false
        /// Pulls a streamed request body into AsyncHTTPClient's writer.
        var upload: Task<Void, Never>?
        var ended = false
    }

    private let url: URL
    private let bufferLimit: Int
    /// Where a streamed upload's completion is reported.
    private let eventLoop: any EventLoop
    private let state = Locked(State())

    init(url: URL, bufferLimit: Int, eventLoop: any EventLoop) {
        self.url = url
        self.bufferLimit = bufferLimit
        self.eventLoop = eventLoop
    }

    /// Sends `request` through `client` and returns at its head; `deadline` is AsyncHTTPClient's
    /// own backstop, the pipeline's timer ends the exchange through ``cancel()``.
    func run(_ request: HTTPClient.Request, on client: HTTPClient, deadline: NIODeadline) async throws
        -> TransportResponse
    {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<TransportResponse, any Error>) in
                state.withLock { $0.head = continuation }
                let task = client.execute(request: request, delegate: self, eventLoop: .indifferent, deadline: deadline)
                let cancelNow = state.withLock { state in
                    guard !state.ended else { return false }
                    state.task = task
                    return state.cancelled
                }
                if cancelNow { task.cancel() }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Ends the request at once: it fails with `HTTPClientError.cancelled` (a ``CancellationError``
    /// for the pipeline), its connection closed. Safe from any thread, any number of times.
    func cancel() {
        let task: HTTPClient.Task<Void>? = state.withLock { state in
            guard !state.cancelled, !state.ended else { return nil }
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }

    /// The request body as AsyncHTTPClient takes it: in one piece when it is bytes in memory that
    /// nobody watches (or a small one), else pulled chunk by chunk, which counts each chunk as
    /// sent for the upload progress.
    func body(_ body: RequestBody) -> HTTPClient.Body? {
        if body.isEmpty { return nil }
        if let data = body.data, body.observer == nil || data.count <= RequestBodyChunks.chunkSize {
            body.reportSent(Int64(data.count))
            return .bytes(data)
        }
        return .stream(contentLength: body.length) { [self] writer in upload(body, to: writer) }
    }

    /// Writes `body`'s chunks one at a time, each when the previous one was written.
    private func upload(_ body: RequestBody, to writer: HTTPClient.Body.StreamWriter) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        let pump = Task {
            do {
                for try await chunk in body.chunks() {
                    try Task.checkCancellation()
                    try await writer.write(.byteBuffer(ByteBuffer(bytes: chunk))).get()
                }
                promise.succeed(())
            } catch {
                promise.fail(error)
            }
        }
        let cancelPump = state.withLock { state in
            guard !state.ended else { return true }
            state.upload = pump
            return false
        }
        if cancelPump { pump.cancel() }
        return promise.futureResult
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let buffer = BodyBuffer(
            limit: bufferLimit,
            callbacks: .init(
                onPause: { [self] in state.withLock { $0.pauseRequested = true } },
                onResume: { [self] in resumeReading() },
                onCancel: { [self] in cancel() }))
        let continuation: CheckedContinuation<TransportResponse, any Error>? = state.withLock { state in
            guard let continuation = state.head else { return nil }
            state.head = nil
            state.buffer = buffer
            return continuation
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(head.headers.count)
        for header in head.headers { headers.append((name: header.name, value: header.value)) }
        guard let continuation else { return task.eventLoop.makeSucceededVoidFuture() }
        let response = TransportResponse(
            statusCode: Int(head.status.code), headers: HTTPHeaders(headers),
            body: ResponseBody(storage: .buffer(BodyBuffer.Owner(buffer))), url: url)
        // Handed on once the event loop has parsed what it read with the head: a body in the
        // same read (most small responses) then already waits in the buffer, and the reader
        // takes it without waiting for another wake-up.
        task.eventLoop.execute { continuation.resume(returning: response) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ part: ByteBuffer) -> EventLoopFuture<Void> {
        guard let buffer = state.withLock({ $0.buffer }) else { return task.eventLoop.makeSucceededVoidFuture() }
        buffer.push(part.withUnsafeReadableBytes { Data($0) })
        let paused: EventLoopFuture<Void>? = state.withLock { state in
            guard state.pauseRequested, !state.ended else { return nil }
            state.pauseRequested = false
            let promise = task.eventLoop.makePromise(of: Void.self)
            state.paused = promise
            return promise.futureResult
        }
        return paused ?? task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        let (head, buffer, paused, upload) = end()
        let mapped = AsyncHTTPClientTransport.map(error)
        if let head {
            head.resume(throwing: AsyncHTTPClientTransport.trustFailure(error, url: url) ?? mapped)
        }
        buffer?.finish(mapped)
        paused?.succeed(())
        upload?.cancel()
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        let (head, buffer, paused, upload) = end()
        head?.resume(throwing: URLError(.badServerResponse))
        buffer?.finish(nil)
        paused?.succeed(())
        upload?.cancel()
    }

    /// The reader took what waited down to half the limit: AsyncHTTPClient may read on.
    private func resumeReading() {
        let paused: EventLoopPromise<Void>? = state.withLock { state in
            state.pauseRequested = false
            let paused = state.paused
            state.paused = nil
            return paused
        }
        paused?.succeed(())
    }

    /// Marks the request ended and hands out what waits on it; drops the references that would
    /// keep the request, the buffer and this object alive in a cycle.
    private func end() -> (
        CheckedContinuation<TransportResponse, any Error>?, BodyBuffer?, EventLoopPromise<Void>?, Task<Void, Never>?
    ) {
        state.withLock { state in
            state.ended = true
            defer {
                state.head = nil
                state.buffer = nil
                state.paused = nil
                state.upload = nil
                state.task = nil
            }
            return (state.head, state.buffer, state.paused, state.upload)
        }
    }
}
#endif
