//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import NIOConcurrencyHelpers

/// A one-shot result handed from the server task to `TestServer.start`: the first
/// `succeed`/`fail` wins, later ones are ignored, and `wait()` may come before or after it.
final class StartupSignal: Sendable {
    private struct State {
        var result: Result<Int, TestServerError>?
        var continuation: CheckedContinuation<Int, any Error>?
    }

    private let state = NIOLockedValueBox(State())

    /// Reports the bound port.
    func succeed(_ port: Int) {
        self.complete(.success(port))
    }

    /// Reports that the server could not start.
    func fail(_ error: TestServerError) {
        self.complete(.failure(error))
    }

    /// Waits for the first reported outcome.
    func wait() async throws -> Int {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            let ready = self.state.withLockedValue { state -> Result<Int, TestServerError>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }

    private func complete(_ result: Result<Int, TestServerError>) {
        let waiter = self.state.withLockedValue { state -> CheckedContinuation<Int, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }
}
