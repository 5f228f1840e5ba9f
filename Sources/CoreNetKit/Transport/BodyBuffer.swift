//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A bounded queue of body chunks between a producer that pushes (URLSession's delegate) and
/// the one reader that pulls them: how a transport without backpressure of its own gets it.
///
/// When more than `limit` bytes wait, the producer is told to pause (`onPause`: suspend the
/// task); once the reader has taken them down to half of it, to go on (`onResume`). When the
/// reader goes away before the end (it is cancelled, or the body or its iterator is dropped)
/// the producer is told to stop (`onCancel`: cancel the task) and what waits is dropped.
/// Decisions are taken under the lock (``State``); the callbacks run after it, never inside.
final class BodyBuffer: Sendable {
    struct Callbacks: Sendable {
        var onPause: @Sendable () -> Void = {}
        var onResume: @Sendable () -> Void = {}
        var onCancel: @Sendable () -> Void = {}
    }

    let limit: Int
    private let callbacks: Callbacks
    private let state: Locked<BodyBufferState>

    /// - Parameters:
    ///   - limit: past this many waiting bytes the producer is told to pause.
    ///   - hardLimit: for a producer that cannot pause: past this many waiting bytes the body
    ///     fails with ``BaseServerError/Code-swift.struct/responseTooLarge`` and the producer is
    ///     cancelled, so memory stays bounded.
    init(limit: Int, hardLimit: Int? = nil, callbacks: Callbacks) {
        self.limit = limit
        self.callbacks = callbacks
        self.state = Locked(BodyBufferState(hardLimit: hardLimit))
    }

    /// How many bytes wait for the reader now.
    var bufferedBytes: Int { state.withLock { $0.buffered } }

    /// Whether the producer has ended the body (or failed it).
    var hasEnded: Bool { state.withLock { $0.hasEnded } }

    /// The producer received `chunk`.
    func push(_ chunk: Data) {
        guard !chunk.isEmpty else { return }
        let action = state.withLock { $0.push(chunk, limit: limit) }
        perform(action)
    }

    /// The producer ended: `error` is `nil` at the body's end.
    func finish(_ error: (any Error)?) {
        let action = state.withLock { $0.finish(error) }
        perform(action)
    }

    /// The reader is gone before the end.
    func cancel() {
        let action = state.withLock { $0.cancel() }
        perform(action)
    }

    fileprivate func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let action = state.withLock { $0.read(continuation, limit: limit) }
                perform(action)
            }
        } onCancel: {
            cancel()
        }
    }

    private func perform(_ action: BodyBufferState.Action) {
        switch action {
        case .none: break
        case .pause: callbacks.onPause()
        case .resume: callbacks.onResume()
        case .deliver(let waiter, let result):
            waiter.resume(with: result)
        case .deliverAndResume(let waiter, let result):
            callbacks.onResume()
            waiter.resume(with: result)
        case .cancel(let waiter):
            callbacks.onCancel()
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// What a ``ResponseBody`` holds: when the last body value and reader are gone before the
    /// end, the producer is cancelled.
    final class Owner: Sendable {
        let buffer: BodyBuffer

        init(_ buffer: BodyBuffer) { self.buffer = buffer }

        deinit { buffer.cancel() }
    }

    /// The reading side: dropping it before the end cancels the producer.
    final class Reader: Sendable {
        let owner: Owner

        init(_ owner: Owner) { self.owner = owner }

        func next() async throws -> Data? { try await owner.buffer.next() }

        deinit { owner.buffer.cancel() }
    }
}

/// The state of a ``BodyBuffer``: events in, actions out.
struct BodyBufferState {
    enum Action {
        case none
        case pause
        case resume
        case deliver(CheckedContinuation<Data?, any Error>, Result<Data?, any Error>)
        case deliverAndResume(CheckedContinuation<Data?, any Error>, Result<Data?, any Error>)
        case cancel(CheckedContinuation<Data?, any Error>?)
    }

    let hardLimit: Int?
    private var chunks: [Data] = []
    private var readIndex = 0
    private(set) var buffered = 0
    private var paused = false
    private var end: Result<Void, any Error>?
    private var cancelled = false
    private var waiter: CheckedContinuation<Data?, any Error>?

    init(hardLimit: Int?) { self.hardLimit = hardLimit }

    var hasEnded: Bool { end != nil }

    mutating func push(_ chunk: Data, limit: Int) -> Action {
        guard !cancelled, end == nil else { return .none }
        if let waiter {
            self.waiter = nil
            return .deliver(waiter, .success(chunk))
        }
        if let hardLimit, buffered + chunk.count > hardLimit {
            // The reader fell too far behind a producer that cannot pause: drop what waits,
            // fail the body and stop the producer.
            chunks = []
            readIndex = 0
            buffered = 0
            end = .failure(
                BaseServerError(
                    code: .responseTooLarge,
                    message: "the reader fell more than \(hardLimit) bytes behind a transport that cannot pause"))
            cancelled = false
            return .cancel(nil)
        }
        chunks.append(chunk)
        buffered += chunk.count
        if buffered >= limit && !paused {
            paused = true
            return .pause
        }
        return .none
    }

    mutating func finish(_ error: (any Error)?) -> Action {
        guard end == nil else { return .none }
        end = error.map { .failure($0) } ?? .success(())
        guard let waiter, readIndex >= chunks.count else { return .none }
        self.waiter = nil
        return .deliver(waiter, error.map { .failure($0) } ?? .success(nil))
    }

    mutating func cancel() -> Action {
        guard !cancelled else { return .none }
        let finished = end != nil
        cancelled = true
        chunks = []
        readIndex = 0
        buffered = 0
        let waiter = self.waiter
        self.waiter = nil
        if finished {
            if let waiter { return .deliver(waiter, .failure(CancellationError())) }
            return .none
        }
        return .cancel(waiter)
    }

    mutating func read(_ continuation: CheckedContinuation<Data?, any Error>, limit: Int) -> Action {
        if cancelled { return .deliver(continuation, .failure(CancellationError())) }
        if readIndex < chunks.count {
            let chunk = chunks[readIndex]
            readIndex += 1
            buffered -= chunk.count
            if readIndex == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                readIndex = 0
            } else if readIndex > 64 && readIndex * 2 > chunks.count {
                chunks.removeFirst(readIndex)
                readIndex = 0
            }
            if paused && buffered <= limit / 2 && end == nil {
                paused = false
                return .deliverAndResume(continuation, .success(chunk))
            }
            return .deliver(continuation, .success(chunk))
        }
        if let end {
            return .deliver(continuation, end.map { nil })
        }
        waiter = continuation
        if paused {
            paused = false
            return .resume
        }
        return .none
    }
}
