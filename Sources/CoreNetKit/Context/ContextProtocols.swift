//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// A context you attach result handlers to.
///
/// Each handler runs on the context's callback queue, at most once, and returns the context for chaining. Exactly one
/// terminal event comes: a success, an error, or nothing after cancellation. A handler attached after that event
/// fires at once (on the queue) if the event is the one it handles.
public protocol ActionableContext<Model>: AnyObject, Sendable {
    /// The type of the successful result.
    associatedtype Model: Sendable

    /// Adds a handler for the successful result; fires once, on the callback queue.
    @discardableResult func onSuccess(_ handler: @escaping @Sendable (Model) -> Void) -> Self
    /// Adds a handler for the failure; fires once, on the callback queue. The error is a
    /// ``BaseServerError`` or the error an ``ErrorMapperAdapter`` produced.
    @discardableResult func onError(_ handler: @escaping @Sendable (any Error) -> Void) -> Self
    /// Adds a handler for whichever terminal event comes, success or error; fires once, on the
    /// callback queue, after the `onSuccess`/`onError` handlers attached before it.
    @discardableResult func onCompleted(_ handler: @escaping @Sendable (Result<Model, any Error>) -> Void) -> Self
}

/// A context that can deliver a cached result before the fresh one.
public protocol CacheableContext<Model>: ActionableContext {
    /// Adds a handler for the cached result; fires at most once, on the callback queue, before
    /// the terminal event, and only when the cache policy read an entry.
    @discardableResult func onCacheSuccess(_ handler: @escaping @Sendable (Model) -> Void) -> Self
}

/// A context whose work can be cancelled.
public protocol CancellableContext: AnyObject, Sendable {
    /// Cancels the work. Afterwards neither `onSuccess` nor `onError` fires; `onCancel` handlers
    /// fire once. Calling it after the terminal event, or twice, does nothing.
    func cancel()
}

/// A context that the owner of the work feeds with results.
public protocol HandableContext<Model>: AnyObject, Sendable {
    /// The type of the successful result.
    associatedtype Model: Sendable
    /// Delivers the successful result; ignored after the terminal event.
    func emit(data: Model)
    /// Delivers the failure; ignored after the terminal event.
    func emit(error: any Error)
}

/// A read-only context: it can be observed but neither fed nor cancelled.
public protocol PassiveContext<Model>: CacheableContext {}

/// A context that delivers pages: one `onSuccess` or `onError` per page rather than one
/// terminal event; see ``BaseIteratableContext``.
public protocol PagingRequestContext<Model>: AnyObject, Sendable {
    /// The type of one page.
    associatedtype Model: Sendable

    /// Adds a page handler; fires on the callback queue for each later page, until the context is released.
    @discardableResult func onSuccess(_ handler: @escaping @Sendable (Model) -> Void) -> Self
    /// Adds a handler for failed pages; fires on the callback queue for each, until the context is released.
    @discardableResult func onError(_ handler: @escaping @Sendable (any Error) -> Void) -> Self
}
