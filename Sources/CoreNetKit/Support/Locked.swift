//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A value guarded by a lock, where the library keeps shared mutable state. The closure passed to
/// ``withLock(_:)`` must be short, synchronous, and must not call out to user code.
final class Locked<Value>: @unchecked Sendable {
    // safe: `value` is read and written only between `lock.lock()` and `lock.unlock()`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
