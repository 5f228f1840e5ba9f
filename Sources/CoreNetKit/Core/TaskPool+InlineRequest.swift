//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// The ``TaskPool`` entry of a request that runs in its caller's Task
/// (``BaseServerRequest/performAsync()``): cancelling it by id cancels that Task.
final class InlineRequest: PoolMember {
    // safe: the task is used only under the lock, and detached before the Task returns
    private let task = Locked<UnsafeCurrentTask?>(nil)

    func attach(_ current: UnsafeCurrentTask?) {
        task.withLock { $0 = current }
    }

    func detach() {
        task.withLock { $0 = nil }
    }

    func cancelAll() {
        task.withLock { $0?.cancel() }
    }
}
