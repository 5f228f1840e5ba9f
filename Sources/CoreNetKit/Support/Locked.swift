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

/// A value guarded by a lock, where the library keeps shared mutable state; one allocation (an `NSLock` would be a
/// second object), shared by copies. The closure passed to ``withLock(_:)`` must be short, synchronous, and must not
/// call out to user code.
struct Locked<Value>: @unchecked Sendable {
    // safe: the value is read and written only between `lock()` and `unlock()` of `storage`'s lock
    private let storage: LockedStorage<Void, Value>

    /// A lock holding `value`, built in place (the autoclosure avoids copying a large struct into storage).
    init(_ value: @autoclosure () -> Value) {
        storage = LockedStorage.create { LockedFields(constants: (), state: value()) }
    }

    @inline(__always)
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withLockedState { _, value in try body(&value) }
    }

    /// Whether `other` is this lock (a copy of it), not just one holding an equal value.
    func isSame(as other: Locked) -> Bool { storage === other.storage }
}

/// Constants and a locked state in one allocation with their lock, for per-request objects; copies share it. A struct:
/// a `ManagedBuffer` subclass cannot be `Sendable`, so this is its `Sendable` handle.
struct LockedObject<Constants, State>: @unchecked Sendable {
    // safe: `State` is read and written only between `lock()` and `unlock()` of `storage`'s lock;
    // `Constants` is written once, when the object is made, before any copy of it is shared
    private let storage: LockedStorage<Constants, State>

    /// The object, its constants and state built in place (autoclosures, as for ``Locked``).
    init(_ constants: @autoclosure () -> Constants, state: @autoclosure () -> State) {
        storage = LockedStorage.create { LockedFields(constants: constants(), state: state()) }
    }

    @inline(__always)
    func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try storage.withLockedState { _, state in try body(&state) }
    }

    /// The object's identity: copies have the same.
    var id: ObjectIdentifier { ObjectIdentifier(storage) }

    /// Runs `body` with the constants in place, without the lock (they never change).
    @inline(__always)
    func withConstants<R>(_ body: (UnsafePointer<Constants>) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointerToHeader { try body(LockedStorage.constants(in: $0)) }
    }
}

struct LockedFields<Constants, State> {
    let constants: Constants
    var state: State
}

/// One allocation: the fields as the header, the lock as the one tail element.
final class LockedStorage<Constants, State>: ManagedBuffer<LockedFields<Constants, State>, PlatformLock> {
    static func create(_ fields: () -> LockedFields<Constants, State>) -> LockedStorage {
        let buffer = create(minimumCapacity: 1) { _ in fields() }
        buffer.withUnsafeMutablePointerToElements { PlatformLock.initialize($0) }
        return unsafeDowncast(buffer, to: LockedStorage.self)
    }

    @inline(__always)
    func withLockedState<R>(_ body: (UnsafePointer<Constants>, inout State) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { fields, lock in
            PlatformLock.lock(lock)
            defer { PlatformLock.unlock(lock) }
            return try body(Self.constants(in: fields), &fields.pointee.state)
        }
    }

    /// The constants in `fields`: its first stored property, so at its start (memory bound to a struct is bound to
    /// its properties' types too).
    @inline(__always)
    static func constants(in fields: UnsafeMutablePointer<LockedFields<Constants, State>>) -> UnsafePointer<Constants> {
        UnsafeRawPointer(fields).assumingMemoryBound(to: Constants.self)
    }

    deinit {
        withUnsafeMutablePointerToElements { PlatformLock.destroy($0) }
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
