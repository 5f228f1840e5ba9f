//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Paging with async/await.
extension BaseIteratableContext {
    /// The pages from the current position to the last one, for `for try await` loops.
    ///
    /// Each step loads one page (or joins the one loading) and yields it; nothing is loaded ahead, so breaking out
    /// leaves no request behind. Pages also go to ``onSuccess(_:)`` handlers. A failed page throws and keeps the
    /// position, so iterating again retries it. Cancelling the Task, ``reset(to:)`` or ``cancel()`` cancels the
    /// page in flight and throws ``BaseServerError`` coded `cancelled`.
    ///
    /// ```swift
    /// for try await page in paginator.pages {
    ///     append(page.items)
    /// }
    /// ```
    public var pages: Pages { Pages(paginator: self) }

    /// The ``BaseIteratableContext/pages`` of a paginator.
    public struct Pages: AsyncSequence, Sendable {
        /// One page.
        public typealias Element = Page

        let paginator: BaseIteratableContext<Position, Page>

        /// Creates the iterator that loads the pages one by one.
        public func makeAsyncIterator() -> Iterator { Iterator(paginator: paginator) }

        /// Loads one page per ``next()``.
        public struct Iterator: AsyncIteratorProtocol {
            let paginator: BaseIteratableContext<Position, Page>

            /// Loads the next page, or waits for the one loading; `nil` after the last page.
            /// Throws as ``BaseIteratableContext/pages`` says.
            public mutating func next() async throws -> Page? {
                try await paginator.nextPage()
            }
        }
    }

    private enum Step {
        case end, cancelled, joined
        case start(Int, Position)
    }

    func nextPage() async throws -> Page? {
        let waiter = OneShot<Page?>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.set(continuation)
                let step: Step = state.withLock { state in
                    if Task.isCancelled { return .cancelled }
                    let begun = state.begin()  // `nil` while a page loads, or after the last
                    if begun == nil, state.inFlight == nil { return .end }
                    state.waiters.append(waiter)
                    return begun.map { .start($0.token, $0.position) } ?? .joined
                }
                switch step {
                case .end: waiter.resume(.success(nil))
                case .cancelled: waiter.resume(.failure(BaseServerError.cancelled))
                case .joined: break
                case .start(let token, let position): launch(token, at: position)
                }
            }
        } onCancel: {
            waiter.resume(.failure(BaseServerError.cancelled))
            if let abandoned = state.withLock({ $0.abandon(awaitedBy: waiter) }) { stop(abandoned) }
        }
    }
}
