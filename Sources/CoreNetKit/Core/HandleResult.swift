//===----------------------------------------------------------------------===//
//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
//
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The result of one `handle(serverResponse:completion:)` call: taken at once when the
/// completion ran synchronously, awaited otherwise. Only the first completion counts.
final class HandleResult<Model: Sendable>: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<ResponseResult<Model>, Never>)
        case done(ResponseResult<Model>)
        case delivered
    }

    private let state = Locked(State.pending)

    /// Records the result; later calls are ignored.
    func complete(_ result: ResponseResult<Model>) {
        let waiter: CheckedContinuation<ResponseResult<Model>, Never>? = state.withLock { state in
            switch state {
            case .pending:
                state = .done(result)
                return nil
            case .waiting(let continuation):
                state = .delivered
                return continuation
            case .done, .delivered:
                return nil
            }
        }
        waiter?.resume(returning: result)
    }

    /// The result, if the completion already ran.
    var completedResult: ResponseResult<Model>? {
        state.withLock { state in
            guard case .done(let result) = state else { return nil }
            state = .delivered
            return result
        }
    }

    /// Waits for the completion.
    func wait() async -> ResponseResult<Model> {
        await withCheckedContinuation { continuation in
            let ready: ResponseResult<Model>? = state.withLock { state in
                switch state {
                case .pending:
                    state = .waiting(continuation)
                    return nil
                case .done(let result):
                    state = .delivered
                    return result
                case .waiting, .delivered:
                    preconditionFailure("HandleResult is awaited once")  // internal misuse only
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
