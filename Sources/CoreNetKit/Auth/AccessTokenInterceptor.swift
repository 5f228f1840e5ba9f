//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
/// The stage of NetworkConfiguration/accessManager (setting that adds, replaces or removes it): it sends each request
/// that ServerRequest/requiresAuthorization through the AccessSafeRequestManager; others pass through.
///
/// It runs after the cache stage, so an answer from the cache never waits for a token or a refresh.
public struct AccessTokenInterceptor: Interceptor, BuiltInStage {
    /// The manager that holds the token and runs refreshes.
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
