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
///
/// The Task is kept from the start and only marked as left at the end: `UnsafeCurrentTask` is
/// resilient, so each copy or destroy of an optional one goes through value witnesses (about 350
/// instructions for a destroy), and the request's path makes one copy and one destroy of it.
struct InlineRequest: PoolMember {
    private let state: Locked<InlineTask>

    /// The entry of `task`, the Task the request runs in.
    init(task: UnsafeCurrentTask?) {
        state = Locked(InlineTask(task: task))
    }

    /// The request returned: cancelling its id no longer reaches its Task.
    func detach() {
        state.withLock { $0.running = false }
    }

    func cancelAll() {
        state.withLock { state in
            if state.running { state.task?.cancel() }
        }
    }
}

/// The Task of an InlineRequest, and whether the request still runs in it.
struct InlineTask {
    // safe to hold: the task is used only under the lock while `running`, and `running` is
    // cleared before the Task returns from the request
    let task: UnsafeCurrentTask?
    var running = true
}
