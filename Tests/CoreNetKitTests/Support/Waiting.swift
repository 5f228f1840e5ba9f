//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

@testable import CoreNetKit

/// A bounded wait ran out.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Runs `operation`, failing with ``TimedOut`` if it takes longer than `seconds`.
/// The timer is a dispatch deadline, not a sleep; the operation is cancelled on timeout.
func withTimeout<T: Sendable>(
    _ seconds: Double = 30, _ what: String = "the operation",
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let once = Once<Result<T, any Error>>()
    let task = Task { once.fire(await Result { try await operation() }) }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
        once.fire(.failure(TimedOut(what: what)))
        task.cancel()
    }
    return try await withTaskCancellationHandler {
        try await once.value.get()
    } onCancel: {
        task.cancel()
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// A value set once and awaited by any number of waiters.
final class Once<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [CheckedContinuation<Value, Never>] = []
    }
    private let state = Locked(State())

    /// Sets the value if it was not set yet; returns whether this call set it.
    @discardableResult
    func fire(_ value: Value) -> Bool {
        let waiters: [CheckedContinuation<Value, Never>]? = state.withLock { state in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Value? = state.withLock { state in
                    if state.value == nil { state.waiters.append(continuation) }
                    return state.value
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    var current: Value? { state.withLock { $0.value } }
}
