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

/// A value guarded by a lock: the only place the library keeps shared mutable state.
///
/// One allocation: a reference to a buffer that holds the value and the lock (an `NSLock`, or a
/// class around the buffer, would be a second object per lock, and contexts, transfers and pool
/// members each have one). Copies share the buffer. The closure passed to ``withLock(_:)`` must
/// be short and synchronous and must not call out to user code.
struct Locked<Value>: @unchecked Sendable {
    // safe: the value is read and written only between `lock()` and `unlock()` of `storage`'s lock
    private let storage: Storage

    init(_ value: Value) {
        storage = Storage.create(value)
    }

    @inline(__always)
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withLockedValue(body)
    }

    /// Whether `other` is this lock (a copy of it), not just one holding an equal value.
    func isSame(as other: Locked) -> Bool {
        storage === other.storage
    }

    private final class Storage: ManagedBuffer<Value, PlatformLock> {
        static func create(_ value: Value) -> Storage {
            let buffer = Storage.create(minimumCapacity: 1) { _ in value }
            // The header is initialised; the lock lives in the element storage.
            buffer.withUnsafeMutablePointerToElements { PlatformLock.initialize($0) }
            return unsafeDowncast(buffer, to: Storage.self)
        }

        @inline(__always)
        func withLockedValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
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
}

#if canImport(Darwin)
typealias PlatformLock = os_unfair_lock_s

extension os_unfair_lock_s {
    @inline(__always) static func initialize(_ lock: UnsafeMutablePointer<Self>) { lock.initialize(to: Self()) }
    @inline(__always) static func lock(_ lock: UnsafeMutablePointer<Self>) { os_unfair_lock_lock(lock) }
    @inline(__always) static func unlock(_ lock: UnsafeMutablePointer<Self>) { os_unfair_lock_unlock(lock) }
    @inline(__always) static func destroy(_ lock: UnsafeMutablePointer<Self>) { lock.deinitialize(count: 1) }
}
#else
typealias PlatformLock = pthread_mutex_t

extension pthread_mutex_t {
    @inline(__always) static func initialize(_ lock: UnsafeMutablePointer<Self>) {
        lock.initialize(to: Self())
        let result = pthread_mutex_init(lock, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }
    @inline(__always) static func lock(_ lock: UnsafeMutablePointer<Self>) {
        let result = pthread_mutex_lock(lock)
        precondition(result == 0, "pthread_mutex_lock failed: \(result)")
    }
    @inline(__always) static func unlock(_ lock: UnsafeMutablePointer<Self>) {
        let result = pthread_mutex_unlock(lock)
        precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
    }
    @inline(__always) static func destroy(_ lock: UnsafeMutablePointer<Self>) {
        pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
    }
}
#endif
