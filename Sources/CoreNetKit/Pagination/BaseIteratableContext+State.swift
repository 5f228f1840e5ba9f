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

/// One loaded page and where the next one starts: what the page loader of a ``BaseIteratableContext`` delivers.
///
/// ``OffsetPaginator`` and ``CursorPaginator`` build it for you; build it for other kinds, such as page numbers:
///
/// ```swift
/// let paginator = BaseIteratableContext<Int, [Order]>(start: 1) { page in
///     service.orders(page: page).map { orders in
///         LoadedPage(orders, next: page + 1, hasMore: !orders.isEmpty)
///     }
/// }
/// ```
public struct LoadedPage<Page: Sendable, Position: Sendable>: Sendable {
    /// The page to deliver.
    public var page: Page
    /// Where the next page starts; kept even when `hasMore` is `false`.
    public var next: Position
    /// Whether a next page exists; `false` ends the paging.
    public var hasMore: Bool

    /// Creates a loaded page.
    public init(_ page: Page, next: Position, hasMore: Bool) {
        self.page = page
        self.next = next
        self.hasMore = hasMore
    }
}

/// Where a paginator stands, as a value you can keep and encode, so a screen can come back where it was.
///
/// Take one with ``BaseIteratableContext/snapshot`` and hand it to a paginator's `restoring:` initializer. A page
/// that was loading when it was taken is not in it: the restored paginator loads that page again.
///
/// ```swift
/// let data = try JSONEncoder().encode(paginator.snapshot)
/// // later, maybe in another process:
/// let snapshot = try JSONDecoder().decode(PaginationSnapshot<Int>.self, from: data)
/// let paginator = OffsetPaginator(pageSize: 20, restoring: snapshot) { offset, limit in … }
/// ```
public struct PaginationSnapshot<Position: Sendable>: Sendable {
    /// Where paging started, and where ``BaseIteratableContext/reset()`` goes back to.
    public var start: Position
    /// Where the next page starts.
    public var next: Position
    /// Whether a next page remains.
    public var hasMore: Bool

    /// Creates a snapshot.
    public init(start: Position, next: Position, hasMore: Bool) {
        self.start = start
        self.next = next
        self.hasMore = hasMore
    }
}

extension PaginationSnapshot: Equatable where Position: Equatable {}
extension PaginationSnapshot: Encodable where Position: Encodable {}
extension PaginationSnapshot: Decodable where Position: Decodable {}
