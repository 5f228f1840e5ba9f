//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

/// One blocking `flock` on its own thread, raced against a deadline and cancellation; the first wins, once. On the lock
/// the caller owns the descriptor; otherwise the thread does, closing it (releasing the lock) when `flock` returns.
final class FileLockWaiter: Sendable {
    private enum Phase {
        case waiting(CheckedContinuation<Bool, any Error>?)
        case locked
        case abandoned
    }

    private let fd: Int32
    private let phase = Locked(Phase.waiting(nil))

    private init(fd: Int32) { self.fd = fd }

    /// `true` once `fd` is locked; `false` when `deadline` came first. Throws `CancellationError` on cancellation, or a
    /// ``BaseServerError`` when `flock` fails (the descriptor is closed).
    static func wait(for fd: Int32, until deadline: Date) async throws -> Bool {
        let waiter = FileLockWaiter(fd: fd)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = waiter.phase.withLock { phase -> Bool in
                    guard case .waiting(.none) = phase, !Task.isCancelled else {
                        phase = .abandoned  // cancelled before the wait began
                        return false
                    }
                    phase = .waiting(continuation)
                    return true
                }
                guard ready else {
                    close(fd)  // the thread never started: the descriptor is still ours to close
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let thread = Thread { waiter.block() }
                thread.name = "CoreNetKit.FileTokenStore.lock"
                thread.start()
                let seconds = max(deadline.timeIntervalSinceNow, 0)
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                    waiter.abandon(with: .success(false))
                }
            }
        } onCancel: {
            waiter.abandon(with: .failure(CancellationError()))
        }
    }

    private func block() {
        var result: Int32
        repeat { result = flock(fd, LOCK_EX) } while result != 0 && errno == EINTR
        let failed = result != 0 ? FileLeaseLock.failure("cannot lock the token file", errno: errno) : nil
        let (continuation, keep) = phase.withLock { phase -> (CheckedContinuation<Bool, any Error>?, Bool) in
            guard case .waiting(let continuation) = phase else { return (nil, false) }
            phase = failed == nil ? .locked : .abandoned
            return (continuation, failed == nil)
        }
        if !keep { close(fd) }
        if let failed { continuation?.resume(throwing: failed) } else { continuation?.resume(returning: true) }
    }

    private func abandon(with result: Result<Bool, any Error>) {
        let continuation = phase.withLock { phase -> CheckedContinuation<Bool, any Error>? in
            guard case .waiting(let continuation) = phase else { return nil }
            phase = .abandoned
            return continuation
        }
        continuation?.resume(with: result)
    }
}
