//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body libcurl wants to send again: the connection it went out on was dropped.
///
/// When a kept-alive connection that libcurl reuses turns out to be dead before any response
/// byte arrived, libcurl sends the request again on a new connection by itself. For a request
/// without a body (GET) that works — and is why a server can see more copies of one GET than the
/// retry policy allows. For a body, libcurl first asks to rewind it; FoundationNetworking (Swift
/// 6.3) asks the task's delegate for a new body stream, and when there is none it resends the
/// head alone: the server waits for a body that never comes and the request ends in `timeout`
/// after the whole timeout (measured: 8.0 s with an 8 s timeout), where AsyncHTTPClient reports
/// the dropped connection at once.
///
/// This transport answers the rewind by cancelling the task and ends it in `connectionLost`,
/// as AsyncHTTPClient does: the request may or may not have reached the server, which is the
/// retry policy's decision (non-idempotent requests are retried only with an `Idempotency-Key`).
extension SessionDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        completionHandler(nil)
        guard let state = state(for: task) else { return }
        state.connectionDropped.withLock { $0 = true }
        // Asked on FoundationNetworking's work queue, which `cancel()` waits for: cancel from
        // another thread, once this callback has returned.
        let box = TaskCancel(task: task, gate: state.gate)
        DispatchQueue.global().async { box.gate.cancel(box.task) }
    }
}

/// Carries a task and its gate to the thread that cancels it.
private struct TaskCancel: @unchecked Sendable {  // safe: `URLSessionTask.cancel()` is thread-safe
    let task: URLSessionTask
    let gate: CancelGate
}

extension URLSessionTask {
    /// Routes FoundationNetworking's body-rewind question to `delegate`: FoundationNetworking
    /// asks a task's own delegate, never the session's.
    func routeBodyRewind(to delegate: SessionDelegate) {
        #if canImport(FoundationNetworking)
        self.delegate = delegate
        #endif
    }
}
