//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

/// The refresh lock of a ``FileTokenStore``: an advisory `flock` on a lock file holding the holder's lease end.
///
/// The kernel releases it when its holder dies. A holder past its lease is broken out: the lock file is unlinked (under
/// a short guard lock) and replaced, so the old holder's write is refused. A waiter blocks in `flock` on its own thread
/// (no polling) until the lock is free, the lease ends, or its Task is cancelled.
struct FileLeaseLock: Sendable {
    let path: String
    let guardPath: String
    let lease: Duration

    /// Takes the lock; returns its descriptor (close it to release).
    func acquire() async throws -> Int32 {
        while true {
            try Task.checkCancellation()
            let fd = try Self.openLockFile(path)
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                if let held = claim(fd) { return held }
                continue
            }
            let reason = errno
            guard reason == EWOULDBLOCK || reason == EINTR else {
                close(fd)
                throw Self.failure("cannot lock \(path)", errno: reason)
            }
            let ends = Self.leaseEnd(fd) ?? Date().addingTimeInterval(lease.timeInterval)
            if ends <= Date() {
                try breakExpiredLock(fd)
                close(fd)
                continue
            }
            if try await FileLockWaiter.wait(for: fd, until: ends), let held = claim(fd) { return held }
        }
    }

    /// Runs `body` only if `fd` is still the current lock, holding the guard lock so no waiter breaks it meanwhile.
    func whileCurrent<T>(_ fd: Int32, _ body: () throws -> T) throws -> T {
        let guardFD = try Self.openLockFile(guardPath)
        defer { close(guardFD) }
        while flock(guardFD, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Self.failure("cannot lock \(guardPath)", errno: errno) }
        }
        guard Self.isCurrent(fd, path: path) else {
            throw BaseServerError(
                code: .fileAccess,
                message:
                    "the refresh lock of \(path) was held past its lease of \(lease) and taken over; nothing was written"
            )
        }
        return try body()
    }

    /// `fd`, locked, if it is still the lock file at ``path``: writes the lease end into it.
    private func claim(_ fd: Int32) -> Int32? {
        guard Self.isCurrent(fd, path: path) else {
            close(fd)  // broken out while we waited: lock the new file
            return nil
        }
        let ends = Date().addingTimeInterval(lease.timeInterval).timeIntervalSince1970
        let record = Array("\(Int64((ends * 1000).rounded())) \(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    /// Unlinks `fd`'s lock file if its lease ended, rechecked under the guard lock so two waiters never break two
    /// holders.
    private func breakExpiredLock(_ fd: Int32) throws {
        _ = try whileCurrent(fd) {
            if let ends = Self.leaseEnd(fd), ends <= Date() { unlink(path) }
        }
    }

    static func leaseEnd(_ fd: Int32) -> Date? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0, let text = String(bytes: buffer.prefix(count), encoding: .utf8),
            let millis = text.split(separator: " ").first.flatMap({ Int64($0) })
        else { return nil }
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    static func openLockFile(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot open \(path)", errno: errno) }
        return fd
    }

    static func isCurrent(_ fd: Int32, path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(fd, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    static func failure(_ what: String, errno code: Int32) -> BaseServerError {
        BaseServerError(code: .fileAccess, message: "\(what): \(String(cString: strerror(code)))")
    }
}

/// One blocking `flock` on its own thread, raced against a deadline and cancellation; the first wins, once. On the lock
/// the caller owns the descriptor; otherwise the thread does, closing it (releasing the lock) when `flock` returns.
private final class FileLockWaiter: Sendable {
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
