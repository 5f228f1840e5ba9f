//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// A context that its owner feeds with a result and that delivers it to handlers.
///
/// Use it to hand out the result of work that is not a ``BaseServerRequest`` (a database value, a combination of two
/// requests) with the same handlers and rules as every ``RequestContext``.
///
/// ```swift
/// let context = HandleRequestContext<Int>()
/// context.onSuccess { print($0) }
/// context.emit(data: 42)
/// ```
public final class HandleRequestContext<Model: Sendable>: RequestContext<Model>, HandableContext,
    @unchecked Sendable  // safe: adds no stored property; the base keeps all mutable state behind a lock
{
    /// Creates a context whose handlers run on `queue`, by default the configured callback queue (`.main` unless set).
    public override init(queue: DispatchQueue? = nil) {
        super.init(queue: queue ?? NetworkConfiguration.default.callbackQueue)
    }

    /// Delivers the successful result; ignored after the terminal event.
    public override func emit(data: Model) {
        super.emit(data: data)
    }

    /// Delivers the success and whether it came from the cache (``RequestContext/isFromCache``); ignored once finished.
    public override func emit(data: Model, fromCache: Bool) {
        super.emit(data: data, fromCache: fromCache)
    }

    /// Delivers the failure; ignored after the terminal event.
    public override func emit(error: any Error) {
        super.emit(error: error)
    }

    /// Delivers a cached result to `onCacheSuccess` handlers; ignored once finished or after a first cached result.
    public override func emitCache(data: Model) {
        super.emitCache(data: data)
    }
}
