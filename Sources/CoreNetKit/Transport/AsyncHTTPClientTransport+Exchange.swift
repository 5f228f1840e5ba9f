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

extension AsyncHTTPClientTransport {
    /// Whether a request with `body` goes through AsyncHTTPClient's task API (``TaskExchange``),
    /// which can be cancelled by a handle, so the pipeline runs the exchange in the caller's Task
    /// and its deadline cancels the handle: no Task of its own and no hop back. A body the
    /// transport must pump (a file, a stream, bytes whose upload progress is watched) goes
    /// through the async API, which pumps it and is cancelled through a Task of its own.
    static func sendsInCallersTask(_ body: RequestBody) -> Bool {
        if body.isEmpty { return true }
        guard let data = body.data else { return false }
        return body.observer == nil || data.count <= RequestBodyChunks.chunkSize
    }
}

/// The request AsyncHTTPClient's task API is running for one ``AsyncHTTPClientTransport/send(_:)``
/// (the latest after a redirect), so that the deadline's cancel action and the awaiting Task's
/// cancellation reach it: given once, they cancel whichever request is current, and a request
/// made after a cancellation is cancelled at once.
final class CurrentTask: Sendable {
    private struct State {
        var task: HTTPClient.Task<Void>?
        var cancelled = false
    }
    private let state = Locked(State())

    /// Makes `task` the current request; cancels it at once if the exchange was cancelled.
    func set(_ task: HTTPClient.Task<Void>) {
        let cancelled: Bool = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// Cancels the current request and any made after it.
    func cancel() {
        let task: HTTPClient.Task<Void>? = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

/// The delegate of one request on AsyncHTTPClient's task API: it hands the head to the waiting
/// sender and the body's parts to a ``BodyBuffer`` the pipeline pulls, pausing the connection
/// (an unfulfilled future) while the buffer is over its limit.
///
/// Everything the callbacks and the reader share is in one lock; AsyncHTTPClient calls the
/// delegate on the request's event loop, one callback at a time.
final class TaskExchange: HTTPClientResponseDelegate {
    typealias Response = Void

    private struct State {
        /// Waits for the head; `nil` once it was resumed.
        var waiter: CheckedContinuation<TransportResponse, any Error>?
        var buffer: BodyBuffer?
        /// The buffer asked the connection to pause.
        var paused = false
        /// The future the connection waits on while paused.
        var resume: EventLoopPromise<Void>?
        /// The request, once running: what the buffer's reader cancels when it goes away.
        var task: HTTPClient.Task<Void>?
        var ended = false
    }
    private let state = Locked(State())
    private let url: URL
    /// Past this many unread bytes the connection is paused.
    static let bufferLimit = 1 << 20

    init(url: URL) { self.url = url }

    /// Sends `request` through `client` and returns at the final head; `current` is told the
    /// running request.
    static func send(
        _ request: HTTPClient.Request, through client: HTTPClient, url: URL, deadline: NIODeadline,
        current: CurrentTask
    ) async throws -> TransportResponse {
        let exchange = TaskExchange(url: url)
        return try await withCheckedThrowingContinuation { waiter in
            exchange.state.withLock { $0.waiter = waiter }
            let task = client.execute(request: request, delegate: exchange, deadline: deadline)
            exchange.state.withLock { $0.task = task }
            current.set(task)
            // A request that fails before its delegate hears of it (the client shut down, a
            // URL it refuses) fails only its future.
            task.futureResult.whenFailure { exchange.end(with: $0) }
        }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let code = Int(head.status.code)
        // An informational response (`103 Early Hints`) is not the answer: wait for the next.
        if (100..<200).contains(code) && code != 101 { return task.eventLoop.makeSucceededVoidFuture() }
        let buffer = BodyBuffer(
            limit: Self.bufferLimit,
            callbacks: .init(
                onPause: { [self] in state.withLock { $0.paused = true } },
                onResume: { [self] in resumeReading() },
                onCancel: { task.cancel() }))
        let waiter: CheckedContinuation<TransportResponse, any Error>? = state.withLock { state in
            state.buffer = buffer
            defer { state.waiter = nil }
            return state.waiter
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(head.headers.count)
        for header in head.headers { headers.append((name: header.name, value: header.value)) }
        waiter?.resume(
            returning: TransportResponse(
                statusCode: code, headers: HTTPHeaders(headers),
                body: ResponseBody(storage: .buffer(BodyBuffer.Owner(buffer))), url: url))
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ part: ByteBuffer) -> EventLoopFuture<Void> {
        let buffer = state.withLock { $0.buffer }
        buffer?.push(part.withUnsafeReadableBytes { Data($0) })
        let resume: EventLoopFuture<Void>? = state.withLock { state in
            guard state.paused, !state.ended else { return nil }
            let promise = state.resume ?? task.eventLoop.makePromise(of: Void.self)
            state.resume = promise
            return promise.futureResult
        }
        return resume ?? task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        end(with: error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        end(with: nil)
    }

    /// The reader took the buffer down: the connection reads again.
    private func resumeReading() {
        let promise: EventLoopPromise<Void>? = state.withLock { state in
            state.paused = false
            defer { state.resume = nil }
            return state.resume
        }
        promise?.succeed(())
    }

    /// The request ended, at the body's end (`error` `nil`) or in `error`; only the first call counts.
    private func end(with error: (any Error)?) {
        let ended: (CheckedContinuation<TransportResponse, any Error>?, BodyBuffer?, EventLoopPromise<Void>?)? =
            state.withLock { state in
                guard !state.ended else { return nil }
                state.ended = true
                defer {
                    state.waiter = nil
                    state.resume = nil
                }
                return (state.waiter, state.buffer, state.resume)
            }
        guard let (waiter, buffer, resume) = ended else { return }
        resume?.succeed(())
        let mapped = error.map {
            AsyncHTTPClientTransport.trustFailure($0, url: url) ?? AsyncHTTPClientTransport.map($0)
        }
        if let waiter {
            waiter.resume(throwing: mapped ?? URLError(.badServerResponse))
        } else {
            buffer?.finish(mapped)
        }
    }
}
#endif
