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
/// Interceptor appended to NetworkConfiguration/interceptors. It is the stage of
/// NetworkConfiguration/preparators: setting those replaces it in the list.
public struct PreparatorInterceptor: Interceptor, BuiltInStage {
    /// The preparators, in order.
    public let preparators: [any RequestPreparator]
    /// For each of ``preparators``, the same one when it prepares in place (the library's own):
    /// run without an async call or a copy of the request.
    private let inPlace: [(any InPlacePreparator)?]

    /// Creates the stage of `preparators`.
    public init(_ preparators: [any RequestPreparator]) {
        self.preparators = preparators
        self.inPlace = preparators.map { $0 as? any InPlacePreparator }
    }

    var isOff: Bool { preparators.isEmpty }

    public func intercept(_ request: consuming ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        for (index, preparator) in preparators.enumerated() {
            if let own = inPlace[index] {
                own.prepare(inPlace: &request)
            } else {
                request = try await preparator.prepare(request)
            }
        }
        next.updateMonitoredRequest(request)
        return try await next.proceed(request)
    }
}
