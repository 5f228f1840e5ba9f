//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

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
