//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// The cursors a ``CursorPaginator`` was given in its current run, so that a server that
/// repeats one (A, B, A, B, …) stops the paging instead of looping.
///
/// A run starts with the paginator (or a reset, which starts a new one). At most ``limit``
/// cursors are remembered; past that the oldest are forgotten, so a loop longer than the limit
/// goes unnoticed, but memory stays bounded whatever the server sends.
struct CursorHistory {
    /// How many cursors a run remembers.
    static let limit = 10_000

    private(set) var run = 0
    /// The last page accepted: its position and the next cursor it named. Reading the same page
    /// again (its cached answer, then the server's) names the same cursor without repeating one.
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

    /// Records `next`, the cursor the page at `position` names in run `run`; `false` when it was
    /// already given in that run by another page. A result of an earlier run is ignored (`true`).
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
