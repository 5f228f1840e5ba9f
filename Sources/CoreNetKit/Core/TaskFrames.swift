//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Room for a request's async frames, taken once at the start of the Task that runs it.
///
/// A Task allocates the frames of the async functions it runs from its own allocator, in slabs
/// of about 1 KB. A frame larger than a slab gets a slab of its own: one `malloc` for each, and
/// the pipeline's three largest frames (``RequestPipeline``'s `run`, ``InterceptorChain``'s
/// `proceed`, ``Exchange``'s `send`, 1.7 KB to 8 KB each) are larger, so a `perform()` Task
/// called `malloc` seven times for its frames. ``reserve()`` is an async function whose frame
/// has room for all of them: its slab is kept when it returns, empty, and the allocator places
/// the frames that follow in it. Two `malloc`s for the frames of a request instead of seven (the
/// first is the small slab of the Task's own frame, taken before this one).
///
/// The frame is never written: its room is a local of a branch that never runs, which the
/// optimiser may not remove (`@_optimize(none)`). If a runtime allocated differently, the cost
/// is one allocation more per Task, no behaviour changes.
enum TaskFrames {
    private typealias Words = (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    )
    /// 1 KB.
    private typealias Kilobyte = (Words, Words, Words, Words, Words, Words, Words, Words)
    /// 16 KB: the frames of a request through the standard stages to a transport.
    private typealias Room = (
        Kilobyte, Kilobyte, Kilobyte, Kilobyte, Kilobyte, Kilobyte, Kilobyte, Kilobyte,
        Kilobyte, Kilobyte, Kilobyte, Kilobyte, Kilobyte, Kilobyte, Kilobyte, Kilobyte
    )

    /// Makes the current Task's allocator take one slab large enough for a request's frames.
    /// Call it first thing in a Task that runs a request; it returns at once.
    @inline(never)
    @_optimize(none)
    static func reserve(_ never: Bool = false) async {
        var room: Room
        if never {
            let words: Words = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let kilobyte: Kilobyte = (words, words, words, words, words, words, words, words)
            room = (
                kilobyte, kilobyte, kilobyte, kilobyte, kilobyte, kilobyte, kilobyte, kilobyte,
                kilobyte, kilobyte, kilobyte, kilobyte, kilobyte, kilobyte, kilobyte, kilobyte
            )
            await Task.yield()
            withUnsafeMutableBytes(of: &room) { _ in }
        }
    }
}
