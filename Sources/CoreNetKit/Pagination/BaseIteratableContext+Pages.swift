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
    /// Each step of the loop loads one page — or waits for the one already loading — and yields
    /// it; the loop ends after the last page. Nothing is loaded ahead: breaking out of the loop
    /// leaves no request behind, and the paginator stays where the loop left it. Pages are also
    /// delivered to ``onSuccess(_:)`` handlers as usual.
    ///
    /// A failed page throws its error and leaves the position, so iterating again retries it.
    /// Cancelling the consuming Task cancels the page in flight and throws ``BaseServerError``
    /// coded `cancelled`, as does a ``reset(to:)`` or ``cancel()`` while a step waits.
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
            ///
            /// - Throws: the error the page failed with, or ``BaseServerError`` coded
            ///   `cancelled` when the Task is cancelled or the paginator is reset or cancelled.
            public mutating func next() async throws -> Page? {
                try await paginator.nextPage()
            }
        }
    }

    /// What a step of ``pages`` does, decided under the lock.
    private enum Step {
        case end, cancelled, joined
        case start(Int, Position)
    }

    /// Loads (or joins) the next page and returns it; `nil` at the end.
    func nextPage() async throws -> Page? {
        let waiter = OneShot<Page?>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.set(continuation)
                let step: Step = state.withLock { state in
                    if Task.isCancelled { return .cancelled }
                    if state.inFlight == nil {
                        guard let begun = state.begin() else { return .end }
                        state.waiters.append(waiter)
                        return .start(begun.token, begun.position)
                    }
                    state.waiters.append(waiter)
                    return .joined
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
