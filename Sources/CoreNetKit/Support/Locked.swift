//===----------------------------------------------------------------------===//
//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
//
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// A value that is read and written only under a lock.
///
/// Closures passed to ``withLock(_:)`` are short and synchronous: they decide what to do and
/// return it; callers act (call handlers, dispatch, await) only after the lock is released.
final class Locked<Value>: @unchecked Sendable {  // safe: `value` is touched only under `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    @inline(__always)
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
