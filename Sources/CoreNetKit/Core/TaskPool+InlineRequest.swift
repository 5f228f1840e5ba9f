//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
/// The TaskPool entry of a request that runs in its caller's Task
/// (BaseServerRequest/performAsync()): cancelling it by id cancels that Task. A `Locked`
/// state, so registering such a request costs one allocation.
typealias InlineRequest = Locked<InlineTask>

/// The Task of an InlineRequest while it runs.
struct InlineTask {
    // safe to hold: the task is used only under the lock, and detached before the Task returns
    var task: UnsafeCurrentTask?
}

extension Locked: PoolMember where Value == InlineTask {
    convenience init() {
        self.init(InlineTask())
    }

    func attach(_ current: UnsafeCurrentTask?) {
        withLock { $0.task = current }
    }

    func detach() {
        withLock { $0.task = nil }
    }

    func cancelAll() {
        withLock { $0.task?.cancel() }
    }
}
