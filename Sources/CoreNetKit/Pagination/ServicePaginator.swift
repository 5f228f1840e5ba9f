//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Loads a list page by page: ``moveNext()`` asks for the next page, ``reset(to:)`` starts again from a position.
///
/// Pages arrive through the paginator's own events (``BaseIteratableContext/onSuccess(_:)``,
/// ``BaseIteratableContext/onError(_:)``), not as return values. At most one page loads at a time.
public protocol ServicePaginator<Model>: AnyObject, Sendable {
    /// One page, as the paginator delivers it.
    associatedtype Model: Sendable
    /// Where a page starts: an offset, a cursor, a page number.
    associatedtype Position: Sendable

    /// Starts loading the next page; `false` (nothing requested) when a page is loading or the end was reached.
    @discardableResult func moveNext() -> Bool

    /// Continues from `position` with the next ``moveNext()``; a page loading is cancelled and never delivered.
    func reset(to position: Position)
}

/// A ``ServicePaginator`` that knows whether more pages remain.
public protocol ServiceAsyncIterator<Model>: ServicePaginator {
    /// Whether a next page remains: `false` once the last page was delivered, `true` again after a reset.
    var canMoveNext: Bool { get }
}
