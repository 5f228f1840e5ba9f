//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The exchange of a transport that implements ``Transport/send(_:)``: a Task that reports the head, then pulls the
/// body one chunk at a time as the pipeline asks for more. Cancelling it cancels the Task.
final class SendingTask: TransportExchange {
    /// Each pulled chunk takes a credit and each request for more gives one. Two at first (the first chunk and a
    /// small body's end) bring a small response in one wake-up; a large one is pulled no faster than it is read.
    private struct Flow {
        var credits = 2
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let flow = Locked(Flow())
    private let task = Locked<Task<Void, Never>?>(nil)

    /// Starts `send` in a Task (with the caller's priority and task-local values) that reports to `events`.
    init(
        _ request: TransportRequest, events: TransportEvents,
        send: @escaping @Sendable (TransportRequest) async throws -> TransportResponse
    ) {
        let task = Task { [flow] in
            do {
                let response = try await send(request)
                events.head(
                    statusCode: response.statusCode, headers: response.headers, url: response.url,
                    httpVersion: response.httpVersion)
                var body = response.body.makeAsyncIterator()
                while await Self.mayPull(flow) {
                    guard let chunk = try await body.next() else {
                        events.end()
                        return
                    }
                    events.chunk(chunk)
                }
                events.fail(CancellationError())
            } catch {
                events.fail(error)
            }
        }
        self.task.withLock { $0 = task }
    }

    func pause() {}  // pulls only on demand

    func resume() {
        flow.withLock { flow in
            flow.credits = min(flow.credits + 1, 2)
            return flow.waiter.take()
        }?.resume()
    }

    func cancel() {
        flow.withLock { flow in
            flow.cancelled = true
            return flow.waiter.take()
        }?.resume()
        task.withLock { $0 }?.cancel()
    }

    /// Takes a credit, waiting for one if there is none; `false` once cancelled.
    private static func mayPull(_ flow: Locked<Flow>) async -> Bool {
        while true {
            let taken: Bool? = flow.withLock { flow in
                if flow.cancelled { return false }
                guard flow.credits > 0 else { return nil }
                flow.credits -= 1
                return true
            }
            if let taken { return taken }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = flow.withLock { flow in
                    guard flow.credits == 0 && !flow.cancelled else { return true }
                    flow.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }
}
