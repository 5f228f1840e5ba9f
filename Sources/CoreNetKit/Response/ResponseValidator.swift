//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Decides whether a response is a success before it is mapped to a model.
///
/// Validators run in order; the first that throws ends the request with that error (after the
/// ``ErrorMapperAdapter`` chain had a chance to turn the body into the app's own error).
public protocol ResponseValidator: Sendable {
    /// Throws when `response` is a failure.
    func validate(_ response: ServerResponse) throws
}

/// Accepts the statuses in ``acceptable`` (2xx by default); anything else fails with
/// ``BaseServerError/Code-swift.struct/unauthorized`` for 401, ``BaseServerError/Code-swift.struct/server`` when the
/// body carries a message (`{"message": …, "code": …}`), or ``BaseServerError/Code-swift.struct/badStatus`` with it.
public struct StatusCodeValidator: ResponseValidator {
    /// The statuses that count as success.
    public var acceptable: Range<Int>

    /// Creates a validator accepting `acceptable`.
    public init(acceptable: Range<Int> = 200..<300) { self.acceptable = acceptable }

    public func validate(_ response: ServerResponse) throws {
        let status = response.statusCode
        guard !acceptable.contains(status) else { return }
        if status == 401 {
            throw BaseServerError(
                code: .unauthorized, statusCode: status, body: response.data,
                message: BodyErrorReader.read(response)?.message)
        }
        if let error = BodyErrorReader.read(response) {
            throw BaseServerError.server(
                message: error.message, code: error.code, statusCode: status, body: response.data)
        }
        throw BaseServerError.badStatus(status, body: response.data)
    }
}

/// Treats an `{"error": {…}}` object in a successful body as a failure (VK-style APIs report errors with status 200).
///
/// It becomes ``BaseServerError/Code-swift.struct/server`` with the message from `error_msg`, `message` or
/// `description` and the code from `error_code` or `code`.
public struct BodyErrorValidator: ResponseValidator {
    /// The top-level key that holds the error object.
    public var key: String

    /// Creates a validator looking for an error object under `key`.
    public init(key: String = "error") { self.key = key }

    public func validate(_ response: ServerResponse) throws {
        guard let object = response.jsonIfObject?[key], case .object = object else { return }
        let error = BodyErrorReader.read(object) ?? (message: "The server reported an error.", code: nil)
        throw BaseServerError.server(
            message: error.message, code: error.code,
            statusCode: response.statusCode, body: response.data)
    }
}

/// Reads a message and code from common error bodies.
enum BodyErrorReader {
    static func read(_ response: ServerResponse) -> (message: String, code: String?)? {
        guard let json = response.jsonIfObject else { return nil }
        if let nested = json["error"], case .object = nested, let error = read(nested) { return error }
        return read(json)
    }

    static func read(_ json: JSON) -> (message: String, code: String?)? {
        let message = ["message", "error_msg", "description", "detail", "error_description"]
            .lazy.compactMap { json[$0]?.stringValue }.first
        guard let message else { return nil }
        let code = ["code", "error_code"].lazy.compactMap { key -> String? in
            guard let value = json[key] else { return nil }
            return value.stringValue ?? value.intValue.map(String.init)
        }.first
        return (message, code)
    }
}

/// The stage that decides success: runs the configuration's ResponseValidators on the response the rest of the chain
/// returned; a rejection goes through the ErrorMapperAdapters (the first that recognises it wins).
///
/// Outermost of the built-in stages, so it judges the response every other stage agreed on (a cached `304`, a replay
/// after a token refresh, a retry's last attempt). It is the stage of NetworkConfiguration/validators and
/// NetworkConfiguration/errorMappers: setting those replaces it in the list.
public struct ResponseValidationInterceptor: Interceptor, BuiltInStage {
    /// The validators, in order; the first rejection ends the request.
    public var validators: [any ResponseValidator]
    /// What turns a rejection into the app's error; the first that recognises it wins.
    public var errorMappers: [any ErrorMapperAdapter]

    /// Creates the stage.
    public init(
        validators: [any ResponseValidator] = [StatusCodeValidator()], errorMappers: [any ErrorMapperAdapter] = []
    ) {
        self.validators = validators
        self.errorMappers = errorMappers
    }

    var isOff: Bool { validators.isEmpty && errorMappers.isEmpty }

    public func intercept(_ request: consuming ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        let response = try await next.proceed(request)
        try Self.validate(response, validators: validators, errorMappers: errorMappers)
        return response
    }

    /// Runs the validators; a rejection goes through the error mappers first.
    static func validate(
        _ response: ServerResponse, validators: [any ResponseValidator], errorMappers: [any ErrorMapperAdapter]
    ) throws {
        for validator in validators {
            do {
                try validator.validate(response)
            } catch {
                for mapper in errorMappers {
                    if let mapped = mapper.map(response, validationError: error) { throw mapped }
                }
                throw error
            }
        }
    }
}

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
