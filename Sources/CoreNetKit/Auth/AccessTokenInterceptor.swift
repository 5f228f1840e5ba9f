//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
/// The stage of the configuration's AccessSafeRequestManager: it adds the access token to
/// every request that ServerRequest/requiresAuthorization, waits while a refresh runs, and
/// after a rejection refreshes once and sends the request through the rest of the chain again.
///
/// It runs after the cache stage, so an answer from the cache never waits for a token or a
/// refresh. Without a manager, or for a request that needs no authorization, it only passes the
/// request on.
public struct AccessTokenInterceptor: Interceptor {
    /// Creates the stage; it reads NetworkConfiguration/accessManager of the request's
    /// configuration.
    public init() {}

    public func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        guard let manager = next.configuration.accessManager, request.requiresAuthorization else {
            return try await next.proceed(request)
        }
        return try await manager.roundTrip(
            request,
            onRefresh: { event in
                next.emit { monitor, request in monitor.request(request, tokenRefresh: event) }
            },
            send: { try await next.proceed($0) })
    }
}
