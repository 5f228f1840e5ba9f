//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock, where the library keeps shared mutable state; copies share it. The closure passed to
/// ``withLock(_:)`` must be short, synchronous, and must not call out to user code.
struct Locked<Value>: @unchecked Sendable {
    // safe: the value is read and written only while `storage`'s lock is held
    private let storage: LockStorage<Value>

    init(_ value: Value) {
        storage = LockStorage.make(value)
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withLock(body)
    }

    /// The same for every copy of this lock, and for no other lock alive.
    var identity: ObjectIdentifier { ObjectIdentifier(storage) }
}

/// The value and its lock in one allocation, as swift-nio's `NIOLockedValueBox` keeps them; the value is reached
/// through the buffer's pointer, so without a dynamic exclusivity check.
///
/// It pays against a class holding an `NSLock` (three allocations a lock, a checked access to the value): in the
/// `Ratio` suite (server in its own process, 2026-12-02, same day) URLSession at c64 read 0.903 (0.850–0.906, three
/// runs) of raw with this storage against 0.857 (0.849–0.878, five runs) with the class, at c1 0.934 against 0.911,
/// and AsyncHTTPClient on `HTTPClient.shared` at c1 0.886 against 0.854.
final class LockStorage<Value>: ManagedBuffer<Value, PlatformLock> {
    static func make(_ value: Value) -> LockStorage {
        let buffer = create(minimumCapacity: 1) { _ in value }
        buffer.withUnsafeMutablePointerToElements { PlatformLock.initialize($0) }
        return buffer as! LockStorage  // safe: `create` called on this class makes an instance of it
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { value, lock in
            PlatformLock.lock(lock)
            defer { PlatformLock.unlock(lock) }
            return try body(&value.pointee)
        }
    }

    deinit {
        withUnsafeMutablePointerToElements { PlatformLock.destroy($0) }
    }
}

#if canImport(Darwin)
typealias PlatformLock = os_unfair_lock_s

extension os_unfair_lock_s {
    static func initialize(_ lock: UnsafeMutablePointer<Self>) { lock.initialize(to: Self()) }
    static func lock(_ lock: UnsafeMutablePointer<Self>) { os_unfair_lock_lock(lock) }
    static func unlock(_ lock: UnsafeMutablePointer<Self>) { os_unfair_lock_unlock(lock) }
    static func destroy(_ lock: UnsafeMutablePointer<Self>) { lock.deinitialize(count: 1) }
}
#else
typealias PlatformLock = pthread_mutex_t

extension pthread_mutex_t {
    static func initialize(_ lock: UnsafeMutablePointer<Self>) {
        lock.initialize(to: Self())
        let result = pthread_mutex_init(lock, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }
    static func lock(_ lock: UnsafeMutablePointer<Self>) {
        let result = pthread_mutex_lock(lock)
        precondition(result == 0, "pthread_mutex_lock failed: \(result)")
    }
    static func unlock(_ lock: UnsafeMutablePointer<Self>) {
        let result = pthread_mutex_unlock(lock)
        precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
    }
    static func destroy(_ lock: UnsafeMutablePointer<Self>) {
        pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
    }
}
#endif
