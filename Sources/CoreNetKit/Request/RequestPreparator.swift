//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Adjusts every request before it is encoded: common headers, common parameters, tokens.
///
/// Preparators run in registration order, each on the previous one's output, every time a request is sent (also
/// when replayed after a token refresh). A preparator should only add headers the request lacks, unless replacing is
/// its job (as a token's is).
public protocol RequestPreparator: Sendable {
    /// Returns `request` prepared for sending; throwing (e.g. ``BaseServerError`` `invalidRequest`) ends the request.
    func prepare(_ request: ServerRequest) async throws -> ServerRequest
}

/// A synchronous preparator, run in place by the preparator stage (no async call, no copy of the request).
/// ``RequestPreparator/prepare(_:)`` comes with it.
public protocol InPlacePreparator: RequestPreparator {
    /// Prepares `request` where it is.
    func prepare(inPlace request: inout ServerRequest)
}

extension InPlacePreparator {
    public func prepare(_ request: ServerRequest) async throws -> ServerRequest {
        var request = request
        prepare(inPlace: &request)
        return request
    }
}

/// Sets `Accept` and `User-Agent: CoreNetKit/<version>` unless the request sets them, plus the `extraHeaders`.
public struct DefaultHeadersPreparator: RequestPreparator, InPlacePreparator {
    /// Headers added to every request that lacks them.
    public var headers: [String: String]

    /// Creates the preparator; `extraHeaders` are added to the defaults.
    public init(
        accept: String = "application/json",
        userAgent: String = "CoreNetKit/\(CoreNetKitVersion.current)",
        extraHeaders: [String: String] = [:]
    ) {
        var headers = ["Accept": accept, "User-Agent": userAgent]
        headers.merge(extraHeaders) { _, extra in extra }
        self.headers = headers
    }

    public func prepare(inPlace request: inout ServerRequest) {
        if request.headers.isEmpty {
            request.headers = headers
            return
        }
        // A few names on each side: compared in place, with no set or lowercased copies made.
        let present = request.headers.keys
        for (name, value) in headers where !present.contains(where: { HTTPHeaders.matches($0, name) }) {
            request.headers[name] = value
        }
    }
}

/// Adds query parameters (e.g. an API version or app key) to every request that lacks them; `.query`'s own win.
public struct CommonQueryPreparator: RequestPreparator, InPlacePreparator {
    /// The parameters to add.
    public var parameters: [String: QueryValue]

    /// Creates the preparator.
    public init(_ parameters: [String: QueryValue]) { self.parameters = parameters }

    public func prepare(inPlace request: inout ServerRequest) {
        switch request.parameters {
        case .query(let existing):
            request.parameters = .query(existing.merging(parameters) { own, _ in own })
        case .none:
            request.parameters = .query(parameters)
        default:
            let query = URLBuilder.encode(URLBuilder.items(parameters))
            request.relativeUrl += (request.relativeUrl.contains("?") ? "&" : "?") + query
        }
    }
}

/// A ``RequestPreparator`` backed by a closure.
public struct ClosurePreparator: RequestPreparator {
    private let body: @Sendable (ServerRequest) async throws -> ServerRequest

    /// Creates a preparator that calls `body`.
    public init(_ body: @escaping @Sendable (ServerRequest) async throws -> ServerRequest) { self.body = body }

    public func prepare(_ request: ServerRequest) async throws -> ServerRequest { try await body(request) }
}

/// The stage that runs the configuration's preparators, in order, once per request before the cache stage (so the
/// cache sees their headers, e.g. for `Vary: Accept-Language`).
///
/// Work needed on every attempt of a retried request (a signature over the final request, a nonce) belongs in an
/// Interceptor appended to NetworkConfiguration/interceptors. Setting NetworkConfiguration/preparators replaces this
/// stage in the list.
public struct PreparatorInterceptor: Interceptor, BuiltInStage {
    /// The preparators, in order.
    public let preparators: [any RequestPreparator]
    /// Each of ``preparators`` that prepares in place (the library's own), run without an async call or a copy.
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
