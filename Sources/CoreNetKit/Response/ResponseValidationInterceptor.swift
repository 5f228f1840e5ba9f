//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
/// The stage that decides success: it runs the configuration's ResponseValidators on the
/// response the rest of the chain returned and, when one rejects it, turns the rejection into the
/// app's error through the ErrorMapperAdapters (the first that recognises it wins).
///
/// It is the outermost built-in stage, so it judges the response every other stage agreed on:
/// a `304` the cache turned into the stored answer, the answer to a replay after a token
/// refresh, the last attempt of a retry. It is the stage of NetworkConfiguration/validators and
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
