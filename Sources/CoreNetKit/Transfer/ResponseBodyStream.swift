//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A request's 2xx response body handed to its reader as it arrives (for a ``ResponseStream`` or the OpenAPI client
/// transport) instead of being collected. Three parties use it:
/// - The pipeline: ``receiveHead(status:headers:)`` once per attempt, ``receive(_:)`` per 2xx body chunk, in order.
/// - The request Task's owner: ``attach(_:)`` right after starting it, ``finish(_:)`` once the pipeline ended
///   (after its scratch files are gone).
/// - The reader: ``answer()`` once, then ``next()`` until `nil` or an error; ``cancel()`` when it gives up.
///
/// A 2xx head is surfaced at most once, and only when its body may have bytes (not `204`, `205`,
/// `Content-Length: 0`). After that the retry stage does not resend (``hasSurfacedHead``); a resend anyway ends the
/// body with an error rather than mixing two responses. Past ``bufferLimit`` buffered bytes, ``receive(_:)`` holds
/// the pipeline, which stops pulling the transport's body.
final class ResponseBodyStream: Sendable {
    enum Answer: Sendable {
        /// A 2xx head whose body follows through ``next()``.
        case streaming(statusCode: Int, headers: HTTPHeaders)
        /// The whole response (any other status, or one answered without the transport).
        case complete(ServerResponse)
    }

    private struct State {
        var answer: Result<Answer, any Error>?
        var answerWaiter: CheckedContinuation<Answer, any Error>?
        var surfaced = false
        /// A second head arrived after one was surfaced.
        var replaced = false
        /// Unread chunks start at `readIndex`.
        var chunks: [Data] = []
        var readIndex = 0
        var buffered = 0
        var chunkWaiter: CheckedContinuation<Data?, any Error>?
        /// The pipeline waits for the reader to take chunks (``bufferLimit``).
        var spaceWaiter: CheckedContinuation<Void, Never>?
        var end: Result<Void, any Error>?
        var task: Task<Void, Never>?
        var cancelled = false

        /// Releases read chunks: with a reader that never quite catches up, the array would hold the whole body.
        mutating func takeChunk() -> Data {
            let chunk = chunks[readIndex]
            chunks[readIndex] = Data()
            readIndex += 1
            if readIndex == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                readIndex = 0
            } else if readIndex >= 256, readIndex * 2 >= chunks.count {
                chunks.removeFirst(readIndex)
                readIndex = 0
            }
            return chunk
        }
    }

    private let state = Locked(State())
    /// The most bytes that wait for the reader before the pipeline stops pulling the transport's body.
    let bufferLimit = 1 << 20

    var heldBytes: Int { state.withLock { $0.chunks.reduce(0) { $0 + $1.count } } }

    /// Whether a 2xx head was handed to the reader: from then on the request must not be sent again.
    var hasSurfacedHead: Bool { state.withLock { $0.surfaced } }

    /// The Task that runs the request: ``cancel()`` cancels it (at once when it already was).
    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func receiveHead(status: Int, headers: HTTPHeaders) {
        let streams =
            (200..<300).contains(status) && status != 204 && status != 205 && headers["Content-Length"] != "0"
        enum Action {
            case none
            case resume(CheckedContinuation<Answer, any Error>, Answer)
            case cancel(Task<Void, Never>?)
        }
        let action: Action = state.withLock { state in
            if state.surfaced {
                // Another attempt after the reader got this one's head: never mix the two.
                guard !state.replaced else { return .none }
                state.replaced = true
                return .cancel(state.task)
            }
            guard streams, !state.cancelled, state.answer == nil else { return .none }
            let answer = Answer.streaming(statusCode: status, headers: headers)
            state.surfaced = true
            state.answer = .success(answer)
            guard let waiter = state.answerWaiter.take() else { return .none }
            return .resume(waiter, answer)
        }
        switch action {
        case .none: break
        case .resume(let waiter, let answer): waiter.resume(returning: answer)
        case .cancel(let task): task?.cancel()
        }
    }

    /// Dropped unless its head was surfaced. Returns when the reader's buffer has room (at once below
    /// ``bufferLimit``) or the pulling Task is cancelled.
    func receive(_ chunk: Data) async {
        guard !chunk.isEmpty else { return }
        let limit = bufferLimit
        await withTaskCancellationHandler {
            await withCheckedContinuation { (space: CheckedContinuation<Void, Never>) in
                let (waiter, hasRoom): (CheckedContinuation<Data?, any Error>?, Bool) = state.withLock { state in
                    guard state.surfaced, !state.replaced, !state.cancelled, state.end == nil, !Task.isCancelled else {
                        return (nil, true)
                    }
                    if let waiter = state.chunkWaiter.take() { return (waiter, true) }
                    state.chunks.append(chunk)
                    state.buffered += chunk.count
                    guard state.buffered > limit else { return (nil, true) }
                    state.spaceWaiter = space
                    return (nil, false)
                }
                waiter?.resume(returning: chunk)
                if hasRoom { space.resume() }
            }
        } onCancel: {
            state.withLock { $0.spaceWaiter.take() }?.resume()
        }
    }

    /// `result` is the answer when no head was surfaced, else the body's end (a body the transport returned in
    /// memory becomes the last chunk). Only the first call counts.
    func finish(_ result: Result<ServerResponse, any Error>) {
        enum Action {
            case none
            case answer(CheckedContinuation<Answer, any Error>, Result<Answer, any Error>)
            case chunk(CheckedContinuation<Data?, any Error>, Result<Data?, any Error>)
        }
        let action: Action = state.withLock { state in
            guard state.end == nil else { return .none }
            var end: Result<Void, any Error> = result.map { _ in () }
            if state.cancelled {
                end = .failure(BaseServerError.cancelled)
            } else if state.replaced {
                end = .failure(
                    BaseServerError.invalidRequest(
                        "the request was sent again after its streamed response had begun; the body is incomplete"))
            }
            state.end = end
            if !state.surfaced {
                let answer: Result<Answer, any Error> =
                    if case .failure(let error) = end { .failure(error) } else { result.map { .complete($0) } }
                state.answer = answer
                guard let waiter = state.answerWaiter.take() else { return .none }
                return .answer(waiter, answer)
            }
            if case .success(let response) = result, case .success = end, !response.data.isEmpty {
                state.chunks.append(response.data)
            }
            guard let waiter = state.chunkWaiter.take() else { return .none }
            if state.readIndex < state.chunks.count {
                return .chunk(waiter, .success(state.takeChunk()))
            }
            return .chunk(waiter, end.map { nil })
        }
        switch action {
        case .none: break
        case .answer(let waiter, let answer): waiter.resume(with: answer)
        case .chunk(let waiter, let chunk): waiter.resume(with: chunk)
        }
    }

    /// Waits for a surfaced 2xx head or the pipeline's end; throws the request's error. Cancelling the Task cancels
    /// the request; the wait ends when the request has ended.
    func answer() async throws -> Answer {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Answer, any Error>) in
                let ready: Result<Answer, any Error>? = state.withLock { state in
                    if state.answer == nil { state.answerWaiter = continuation }
                    return state.answer
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The next chunk of a surfaced body, `nil` at its end; throws the request's error. Cancelling the Task cancels
    /// the request; the read ends with `cancelled` once the request has ended (its scratch files gone).
    func next() async throws -> Data? {
        if Task.isCancelled { cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let (ready, space): (Result<Data?, any Error>?, CheckedContinuation<Void, Never>?) = state.withLock {
                    state in
                    if !state.cancelled && state.readIndex < state.chunks.count {
                        let chunk = state.takeChunk()
                        state.buffered -= chunk.count
                        return (.success(chunk), state.buffered <= bufferLimit ? state.spaceWaiter.take() : nil)
                    }
                    if let end = state.end {
                        return (state.cancelled ? .failure(BaseServerError.cancelled) : end.map { nil }, nil)
                    }
                    state.chunkWaiter = continuation
                    return (nil, nil)
                }
                space?.resume()
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Cancels the request (unless it ended) and drops buffered chunks; no head is surfaced after it, and the outcome
    /// is `cancelled`. ``finish(_:)`` resumes the waiters.
    func cancel() {
        let (task, space): (Task<Void, Never>?, CheckedContinuation<Void, Never>?) = state.withLock { state in
            guard state.end == nil, !state.cancelled else { return (nil, nil) }
            state.cancelled = true
            state.chunks = []
            state.readIndex = 0
            state.buffered = 0
            return (state.task, state.spaceWaiter.take())
        }
        space?.resume()
        task?.cancel()
    }
}
