//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// The mutable state of a ``BaseIteratableContext``, in one lock. Its methods decide and return what to do; the
/// context acts on it after unlocking.
struct IteratorState<Position: Sendable, Page: Sendable> {
    /// `token` tells the result of the request in flight from a stale one.
    struct InFlight {
        let token: Int
        var cancel: (@Sendable () -> Void)?
    }

    /// What to stop and whom to tell after a page was abandoned (reset, cancel).
    struct Abandoned {
        var cancel: (@Sendable () -> Void)?
        var waiters: [OneShot<Page?>] = []
    }

    struct Delivery {
        var result: Result<Page?, any Error>
        var waiters: [OneShot<Page?>]
    }

    var start: Position
    var next: Position
    var hasMore: Bool
    var inFlight: InFlight?
    var lastToken = 0
    /// Events decided but not yet handed to handlers; a reset empties it.
    var outbox: [Result<Page, any Error>] = []
    /// `pages` iterators waiting for the page in flight.
    var waiters: [OneShot<Page?>] = []
    var success: [@Sendable (Page) -> Void] = []
    var failure: [@Sendable (any Error) -> Void] = []

    init(_ snapshot: PaginationSnapshot<Position>) {
        start = snapshot.start
        next = snapshot.next
        hasMore = snapshot.hasMore
    }

    var snapshot: PaginationSnapshot<Position> {
        PaginationSnapshot(start: start, next: next, hasMore: hasMore)
    }

    mutating func begin() -> (token: Int, position: Position)? {
        guard hasMore, inFlight == nil else { return nil }
        lastToken += 1
        inFlight = InFlight(token: lastToken)
        return (lastToken, next)
    }

    /// Records how to cancel request `token`; `false` when it was abandoned meanwhile.
    mutating func attach(_ cancel: @escaping @Sendable () -> Void, to token: Int) -> Bool {
        guard inFlight?.token == token else { return false }
        inFlight?.cancel = cancel
        return true
    }

    /// Records the result of request `token`; `nil` when it is stale. A failure keeps the position, so the next
    /// request asks for the same page. `outcome` comes from `load`'s `LoadedPage` context, so the cast is safe.
    mutating func finish(_ token: Int, _ outcome: ContextOutcome) -> Delivery? {
        guard inFlight?.token == token else { return nil }
        inFlight = nil
        let event: Result<Page, any Error>
        switch outcome {
        case .success(let model, _):
            let loaded = model as! LoadedPage<Page, Position>  // safe: see above
            next = loaded.next
            hasMore = loaded.hasMore
            event = .success(loaded.page)
        case .failure(let error):
            // A server that repeats a cursor would be paged forever: that failure ends the paging.
            if (error as? BaseServerError)?.code == .repeatedCursor { hasMore = false }
            event = .failure(error)
        case .cancelled: event = .failure(BaseServerError.cancelled)
        }
        outbox.append(event)
        defer { waiters = [] }
        return Delivery(result: event.map { $0 }, waiters: waiters)
    }

    /// Drops the page in flight: its result will be stale. The position stays.
    mutating func abandon() -> Abandoned {
        defer {
            inFlight = nil
            waiters = []
        }
        return Abandoned(cancel: inFlight?.cancel, waiters: waiters)
    }

    /// Drops the page in flight if `waiter` is waiting for it; `nil` otherwise.
    mutating func abandon(awaitedBy waiter: OneShot<Page?>) -> Abandoned? {
        guard waiters.contains(where: { $0.isSame(as: waiter) }) else { return nil }
        return abandon()
    }

    /// Also drops every event not yet handed to a handler, so nothing from before the reset is delivered after it.
    mutating func reset(to position: Position) -> Abandoned {
        next = position
        hasMore = true
        outbox = []
        return abandon()
    }

    mutating func takeOutbox() -> (
        events: [Result<Page, any Error>], success: [@Sendable (Page) -> Void], failure: [@Sendable (any Error) -> Void]
    ) {
        defer { outbox = [] }
        return (outbox, success, failure)
    }
}
