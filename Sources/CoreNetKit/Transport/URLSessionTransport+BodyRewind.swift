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
/// When a reused kept-alive connection is found dead before any response byte, libcurl resends the request on a
/// new connection (so a server may see more copies of a GET than the retry policy allows). For a body it asks to
/// rewind; FoundationNetworking (Swift 6.3) asks the task's delegate for a new stream and, given none, resends the
/// head alone, so the request waits out its whole timeout.
///
/// This transport cancels the task instead and ends it in `connectionLost`, as AsyncHTTPClient does; whether to
/// retry is the retry policy's call (non-idempotent requests only with an `Idempotency-Key`).
extension SessionDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        completionHandler(nil)
        guard let state = state(for: task) else { return }
        state.connectionDropped.withLock { $0 = true }
        // Called on the work queue `cancel()` waits for: cancel from another thread after returning.
        state.cancelElsewhere(SessionTask(task: task))
    }
}

extension URLSessionTask {
    /// Routes the body-rewind question to `delegate`: FoundationNetworking asks the task's delegate, not the session's.
    func routeBodyRewind(to delegate: SessionDelegate) {
        #if canImport(FoundationNetworking)
        self.delegate = delegate
        #endif
    }
}
