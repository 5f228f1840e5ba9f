//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
/// The stage that runs the configuration's RequestPreparators, in order, on the request
/// before it goes on: common headers, common query parameters, anything a closure adds.
///
/// It runs once per request, before the cache stage, so the cache sees the headers the
/// preparators set (a `Vary: Accept-Language` works). Work that must happen on every attempt
/// of a retried request — a signature over the final request, a nonce — belongs in an
/// Interceptor appended to NetworkConfiguration/interceptors.
public struct PreparatorInterceptor: Interceptor {
    /// Creates the stage; it reads NetworkConfiguration/preparators of the request's
    /// configuration.
    public init() {}

    public func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        let preparators = next.configuration.preparators
        guard !preparators.isEmpty else { return try await next.proceed(request) }
        var prepared = request
        for preparator in preparators {
            prepared = try await preparator.prepare(prepared)
        }
        next.updateMonitoredRequest(prepared)
        return try await next.proceed(prepared)
    }
}
