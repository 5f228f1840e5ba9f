//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
/// The stage of the configuration's AccessSafeRequestManager: it adds the access token to every request that
/// ServerRequest/requiresAuthorization, waits while a refresh runs, and after a rejection refreshes once and sends the
/// request through the rest of the chain again.
///
/// It runs after the cache stage, so an answer from the cache never waits for a token or a refresh. A request that
/// needs no authorization passes through. It is the stage of NetworkConfiguration/accessManager: setting that adds,
/// replaces or removes it.
public struct AccessTokenInterceptor: Interceptor, BuiltInStage {
    /// The manager that holds the token and runs the refreshes.
    public let manager: AccessSafeRequestManager

    /// Creates the stage of `manager`.
    public init(manager: AccessSafeRequestManager) { self.manager = manager }

    var isOff: Bool { false }

    public func intercept(_ request: consuming ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        guard request.requiresAuthorization else { return try await next.proceed(request) }
        return try await manager.roundTrip(
            request,
            onRefresh: { event in
                next.emit { monitor, request in monitor.request(request, tokenRefresh: event) }
            },
            send: { try await next.proceed($0) })
    }
}
