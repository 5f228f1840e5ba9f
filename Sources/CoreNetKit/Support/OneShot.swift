//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
/// A result that is set once and awaited once: the library's one one-shot waiter. Copies share it.
///
/// The first `resume(_:)` wins; later ones are ignored. The waiter (`set(_:)` or `value`) may come before or after
/// the result; a result already there is taken without suspending (`completedResult`). The lock and `done` let
/// exactly one `resume(_:)` reach the checked continuation.
struct OneShot<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
        var done = false
    }

    private let state = Locked(State())

    /// Whether `other` is this waiter (a copy of it).
    func isSame(as other: OneShot) -> Bool { state.identity == other.state.identity }

    /// Hands the result to `continuation`, at once if it is already there.
    func set(_ continuation: CheckedContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = state.withLock { state in
            if let early = state.early {
                state.early = nil
                return early
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Sets the result; ignored after the first call.
    func resume(_ result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard !state.done else { return nil }
            state.done = true
            if let continuation = state.continuation {
                state.continuation = nil
                return continuation
            }
            state.early = result
            return nil
        }
        continuation?.resume(with: result)
    }

    /// The result if it is already there and nobody waits for it; taking it consumes it.
    private var completedResult: Result<Value, any Error>? {
        state.withLock { state in
            defer { state.early = nil }
            return state.early
        }
    }

    /// The result, awaited (once).
    var value: Value {
        get async throws {
            if let done = completedResult { return try done.get() }
            return try await withCheckedThrowingContinuation { set($0) }
        }
    }
}
