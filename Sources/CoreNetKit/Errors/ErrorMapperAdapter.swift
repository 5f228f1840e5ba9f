//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Turns a failed response's body into the app's own error.
///
/// Adapters run in registration order when a validator rejects a response; the first error returned reaches
/// `onError`. When none recognises the body, the validator's ``BaseServerError`` does.
public protocol ErrorMapperAdapter: Sendable {
    /// The app's error for `response`, or `nil` if not recognised; `error` is what the validator threw.
    func map(_ response: ServerResponse, validationError error: any Error) -> (any Error)?
}

/// Decodes failed responses' bodies as `AppError`.
///
/// ```swift
/// struct APIError: Error, Decodable, Sendable { let code: String; let message: String }
/// configuration.errorMappers = [DecodableErrorMapper(APIError.self)]
/// ```
public struct DecodableErrorMapper<AppError: Error & Decodable & Sendable>: ErrorMapperAdapter {
    private let statuses: Range<Int>?

    /// Creates a mapper for `type`; with `statuses`, only responses with those statuses.
    public init(_ type: AppError.Type, statuses: Range<Int>? = nil) { self.statuses = statuses }

    public func map(_ response: ServerResponse, validationError error: any Error) -> (any Error)? {
        if let statuses, !statuses.contains(response.statusCode) { return nil }
        guard !response.data.isEmpty else { return nil }
        return try? JSONDecoder().decode(AppError.self, from: response.data)
    }
}

/// An ``ErrorMapperAdapter`` backed by a closure.
public struct ClosureErrorMapper: ErrorMapperAdapter {
    private let body: @Sendable (ServerResponse, any Error) -> (any Error)?

    /// Creates a mapper that calls `body`.
    public init(_ body: @escaping @Sendable (ServerResponse, any Error) -> (any Error)?) { self.body = body }

    public func map(_ response: ServerResponse, validationError error: any Error) -> (any Error)? {
        body(response, error)
    }
}
