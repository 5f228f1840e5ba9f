//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
/// The TaskPool entry of a request that runs in its caller's Task
/// (BaseServerRequest/performAsync()): cancelling it by id cancels that Task. Its one
/// `Locked` is the one allocation registering such a request costs; copies share it.
struct InlineRequest: PoolMember {
    private let state = Locked(InlineTask())

    func attach(_ current: UnsafeCurrentTask?) {
        state.withLock { $0.task = current }
    }

    func detach() {
        state.withLock { $0.task = nil }
    }

    func cancelAll() {
        state.withLock { $0.task?.cancel() }
    }
}

/// The Task of an InlineRequest while it runs.
struct InlineTask {
    // safe to hold: the task is used only under the lock, and detached before the Task returns
    var task: UnsafeCurrentTask?
}
