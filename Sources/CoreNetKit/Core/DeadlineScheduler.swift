//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

/// What a ``DeadlineScheduler`` wakes.
protocol DeadlineTarget: Sendable {
    /// The time it was scheduled for has come (perhaps a little early: it looks at its clock).
    func deadlineReached()
}

/// One Dispatch timer for the deadlines of every request on the system clock, so a request needs no Task or timer of
/// its own: an entry in a min-heap, armed on the earliest, removed when the request ends. Generic over its targets so it
/// holds the target itself (a reference), not an existential whose every move goes through value witnesses.
final class DeadlineScheduler<Target: DeadlineTarget>: @unchecked Sendable {
    // safe: `timer` is set once in `init`, then only rescheduled under `state`'s lock (`dispatch_source_set_timer` is
    // thread-safe); everything else is in `state`.

    /// `due` is the duration since ``SystemClock/epoch``: integers, so heap moves need no value witnesses.
    private struct Entry {
        let due: Duration
        let id: UInt64
    }
    private struct State {
        /// A min-heap by `due`; entries whose target left stay until they come up (or a compaction).
        var heap: [Entry] = []
        /// The targets still waiting, by id.
        var targets: [UInt64: Target] = [:]
        var lastId: UInt64 = 0
        var armedAt: Duration?

        mutating func add(_ target: Target) -> UInt64 {
            lastId += 1
            targets[lastId] = target
            return lastId
        }
    }
    /// Deadlines are compared on the system clock (durations since its epoch); Dispatch is only told how long to wait.
    private let state = Locked(State())
    private let timer: any DispatchSourceTimer

    /// The counts of entries waiting and of heap slots (cancelled entries included), for tests.
    var counts: (waiting: Int, heap: Int) { state.withLock { ($0.targets.count, $0.heap.count) } }

    init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "CoreNetKit.deadlines"))
        timer.setEventHandler { [weak self] in self?.fireDue() }
        timer.activate()
    }

    /// Schedules `target` at `due` (on the system clock, the duration since its ``SystemClock/epoch``); returns the
    /// entry's id for ``cancel(_:)``. The timer is armed at most a day ahead; a wake that finds nothing due re-arms.
    func schedule(at due: Duration, _ target: Target) -> UInt64 {
        state.withLock { state in
            let id = state.add(target)
            if let armedAt = state.armedAt, armedAt <= due {
                // The timer wakes earlier anyway: the clock is read only to arm it.
                Self.push(Entry(due: due, id: id), into: &state.heap)
                return id
            }
            let now = SystemClock.sinceEpoch
            let due = min(due, now + .seconds(86_400))
            Self.push(Entry(due: due, id: id), into: &state.heap)
            arm(&state, at: due, now: now)
            return id
        }
    }

    func schedule(after delay: Duration, _ target: Target) -> UInt64 {
        schedule(at: SystemClock.sinceEpoch + max(delay, .zero), target)
    }

    /// Removes the entry `id`, if it has not fired yet.
    func cancel(_ id: UInt64) {
        state.withLock { state in
            guard state.targets.removeValue(forKey: id) != nil else { return }
            if state.heap.count > 2 * state.targets.count + 1024 {
                let targets = state.targets
                state.heap.removeAll { targets[$0.id] == nil }
                state.heap.sort { $0.due < $1.due }  // a sorted array is a min-heap
            }
        }
    }

    private func fireDue() {
        let now = SystemClock.sinceEpoch
        let due: [Target] = state.withLock { state in
            var due: [Target] = []
            while let first = state.heap.first, first.due <= now {
                Self.popFirst(from: &state.heap)
                if let target = state.targets.removeValue(forKey: first.id) { due.append(target) }
            }
            state.armedAt = nil
            if let next = state.heap.first { arm(&state, at: next.due, now: now) }
            return due
        }
        for target in due { target.deadlineReached() }
    }

    private func arm(_ state: inout State, at due: Duration, now: Duration) {
        state.armedAt = due
        let (seconds, attoseconds) = max(due - now, .zero).components
        let nanoseconds = Int(min(seconds, 86_400)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        // A relative wait: a wake that comes early finds nothing due and re-arms on the clock.
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), leeway: .milliseconds(1))
    }

    private static func push(_ entry: Entry, into heap: inout [Entry]) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func popFirst(from heap: inout [Entry]) {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
