//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// The cursors a ``CursorPaginator`` was given in its current run (from creation or a reset), so that a server
/// that repeats one (A, B, A, B, …) stops the paging instead of looping. Past ``limit`` the oldest are forgotten:
/// a longer loop goes unnoticed, but memory stays bounded.
struct CursorHistory {
    static let limit = 10_000

    private(set) var run = 0
    /// The last page accepted: reading it again (cached answer, then the server's) names the same cursor legally.
    private var last: (position: String?, next: String)?
    private var seen: Set<String> = []
    private var order: [String] = []
    private var oldest = 0

    /// Starts a new run at `start`: only the start cursor is remembered.
    mutating func restart(at start: String?) {
        run += 1
        last = nil
        seen = []
        order = []
        oldest = 0
        if let start { remember(start) }
    }

    /// Records `next`, named by the page at `position`; `false` when another page gave it in this run. A result of
    /// an earlier run is ignored (`true`).
    mutating func accept(_ next: String, at position: String?, inRun run: Int) -> Bool {
        guard run == self.run else { return true }
        if let last, last.position == position, last.next == next { return true }
        guard !seen.contains(next) else { return false }
        last = (position, next)
        remember(next)
        return true
    }

    private mutating func remember(_ cursor: String) {
        seen.insert(cursor)
        order.append(cursor)
        if order.count - oldest > Self.limit {
            seen.remove(order[oldest])
            oldest += 1
            if oldest > Self.limit {
                order.removeFirst(oldest)
                oldest = 0
            }
        }
    }
}
