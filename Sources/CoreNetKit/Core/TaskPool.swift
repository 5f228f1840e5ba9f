//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The requests in flight, each registered under an id so it can be listed, found and cancelled by id.
///
/// A request performed with the id of one in flight joins it: one network call, and every joined context gets the
/// result. A request leaves the pool just before its result is delivered, or when cancelled; an idle pool is empty.
public final class TaskPool: Sendable {
    /// The pool requests use unless their configuration names another.
    public static let shared = TaskPool()

    /// What the pool knows of one request in flight.
    public struct Entry: Sendable {
        /// The request's id.
        public let id: String
        /// Its method.
        public let method: HTTPMethod
        /// When it started, by the configuration's ``NetworkConfiguration/clock``.
        public let startedAt: Date
        private let request: ServerRequest

        /// Its URL as the request describes it (`ServerRequest.url(encoder:)`: the base URL with its path, the relative
        /// URL and the `.query` parameters, not the preparators' items), secrets redacted as in logs.
        public var url: String { request.reportedURL(encoder: JSONEncoder()) }

        init(id: String, request: ServerRequest, startedAt: Date) {
            self.id = id
            self.method = request.method
            self.startedAt = startedAt
            self.request = request
        }
    }

    private struct Slot {
        let entry: Entry
        let broadcast: any PoolMember
        /// `broadcast`'s identity, compared on removal without copying the slot; `nil` for a generated slot.
        let member: ObjectIdentifier?
    }

    private struct State {
        /// Requests registered by id (named, or joined by id).
        var slots: [String: Slot] = [:]
        /// Requests run in their caller's Task under an id made here, keyed by number (an integer hashes faster).
        var generated: [Int: Slot] = [:]
        var nextId = 0

        func slot(_ id: String) -> Slot? {
            slots[id] ?? TaskPool.generatedNumber(id).flatMap { generated[$0] }
        }

        var all: [Slot] { Array(slots.values) + Array(generated.values) }
    }

    private let state = Locked(State())

    /// Creates an empty pool.
    public init() {}

    /// The ids of the requests in flight, sorted.
    public var ids: [String] { state.withLock { $0.all.map(\.entry.id) }.sorted() }
    /// The requests in flight, oldest first.
    public var entries: [Entry] {
        state.withLock { $0.all.map(\.entry) }.sorted { $0.startedAt < $1.startedAt }
    }
    /// How many requests are in flight.
    public var count: Int { state.withLock { $0.slots.count + $0.generated.count } }
    /// Whether no request is in flight.
    public var isEmpty: Bool { state.withLock { $0.slots.isEmpty && $0.generated.isEmpty } }

    /// The request in flight with `id`, if any; `nil` once it finished or was cancelled.
    ///
    /// ```swift
    /// if let entry = TaskPool.shared.find(id: "create-order-7") { print(entry.method, entry.url) }
    /// ```
    public func find(id: String) -> Entry? { state.withLock { $0.slot(id)?.entry } }

    /// Cancels every context of the request `id`; does nothing if none is in flight.
    public func cancel(id: String) {
        state.withLock { $0.slot(id)?.broadcast }?.cancelAll()
    }

    /// Cancels every request in flight.
    public func cancelAll() {
        for member in state.withLock({ $0.all.map(\.broadcast) }) { member.cancelAll() }
    }

    // MARK: Internal

    func generateId() -> String {
        Self.generatedId(
            state.withLock { state in
                state.nextId += 1
                return state.nextId
            })
    }

    /// Registers the member `make` creates under a new id (nobody can join it) and returns what `make` made. `make`
    /// gets the id and the number for ``removeGenerated(_:)``, and runs under the pool's lock.
    func registerGenerated<Made>(
        request: ServerRequest, startedAt: Date,
        make: (_ id: String, _ number: Int) -> (made: Made, member: any PoolMember)
    ) -> Made {
        state.withLock { state in
            state.nextId += 1
            let number = state.nextId
            let id = Self.generatedId(number)
            let (made, member) = make(id, number)
            state.generated[number] = Slot(
                entry: Entry(id: id, request: request, startedAt: startedAt), broadcast: member, member: nil)
            return made
        }
    }

    /// Removes the request ``registerGenerated(request:startedAt:make:)`` numbered `number`. A number is made once
    /// and only its request knows it, so no identity is compared.
    func removeGenerated(_ number: Int) {
        let removed = state.withLock { $0.generated.removeValue(forKey: number) }
        _ = removed  // released outside the lock: the entry holds the whole request
    }

    /// `request-<number>`.
    static func generatedId(_ number: Int) -> String { "request-" + String(number) }

    /// The number of an id ``generatedId(_:)`` made, or `nil`.
    static func generatedNumber(_ id: String) -> Int? {
        // Only the canonical spelling: no sign, no leading zero.
        guard id.hasPrefix("request-"), let number = Int(id.dropFirst(8)), number >= 0, generatedId(number) == id
        else { return nil }
        return number
    }

    /// Joins the broadcast in flight under `id` if it accepts `join`, else registers the one `make` creates. Returns it
    /// and whether it is new; `nil` if the one in flight is of another kind or `accepts` refuses it (other model type).
    func joinOrRegister<Member: IdentifiedPoolMember>(
        id: String, request: ServerRequest, startedAt: Date, accepts: (Member) -> Bool, join: (Member) -> Bool,
        make: () -> Member
    ) -> (member: Member?, isNew: Bool) {
        state.withLock { state in
            if let slot = state.slots[id] {
                guard let existing = slot.broadcast as? Member, accepts(existing) else { return (nil, false) }
                if join(existing) { return (existing, false) }
            }
            let member = make()
            state.slots[id] = Slot(
                entry: Entry(id: id, request: request, startedAt: startedAt), broadcast: member, member: member.identity
            )
            return (member, true)
        }
    }

    /// Removes `id` if it is still registered to `member`.
    func remove(id: String, member: ObjectIdentifier) {
        state.withLock { state in
            // One lookup: the index, then removal at it.
            if let index = state.slots.index(forKey: id), state.slots.values[index].member == member {
                state.slots.remove(at: index)
            }
        }
    }
}

/// A request in flight as the pool sees it: a context's broadcast (removed by identity) or an inline run (by number).
protocol PoolMember: Sendable {
    func cancelAll()
}

/// A pool member registered by id, removed by its identity (``TaskPool``'s `remove(id:member:)`).
protocol IdentifiedPoolMember: PoolMember {
    /// The same for every copy of the member, and for no other member in flight.
    var identity: ObjectIdentifier { get }
}

/// The TaskPool entry of a request run in its caller's Task (BaseServerRequest/performAsync()): cancelling its id
/// cancels that Task. Copies share its one `Locked`. The Task is kept and only marked as left at the end, not cleared:
/// `UnsafeCurrentTask` is resilient, so copying or destroying an optional one goes through value witnesses.
struct InlineRequest: PoolMember {
    private let state: Locked<InlineTask>

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
///
/// Holding the caller's `UnsafeCurrentTask` is what lets performAsync() skip a Task and a context of its own, and it
/// pays: out of process (AsyncHTTPClient, 20-item page, three runs in turns, 2026-12-02) 0.90 of raw throughput at c1
/// and 0.89 at c64, against 0.81 and 0.78 through a Task and a context; client CPU +23 and +43 µs over raw against +55
/// and +68.
struct InlineTask {
    // safe to hold: used only under the lock while `running`, which is cleared before the Task returns from the request
    let task: UnsafeCurrentTask?
    var running = true
}
