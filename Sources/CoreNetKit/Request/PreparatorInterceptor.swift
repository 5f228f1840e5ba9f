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
        let configuration = next.configuration
        guard !configuration.preparators.isEmpty else { return try await next.proceed(request) }
        var prepared = request
        try await configuration.prepare(&prepared)
        next.updateMonitoredRequest(prepared)
        return try await next.proceed(prepared)
    }
}

extension NetworkConfiguration {
    /// Runs ``preparators`` on `request`, in order: the library's own in place, any other
    /// through its `prepare(_:)`.
    @inline(__always)
    func prepare(_ request: inout ServerRequest) async throws {
        let inPlace = inPlacePreparators
        for (index, preparator) in preparators.enumerated() {
            if let own = inPlace[index] {
                own.prepare(inPlace: &request)
            } else {
                request = try await preparator.prepare(request)
            }
        }
    }
}
