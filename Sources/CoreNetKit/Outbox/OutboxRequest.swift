//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A ``ServerRequest`` as an ``Outbox`` stores it: the method, URL, headers, parameters and
/// timeout, as a value that can be written and read back (never a closure, never a credential).
///
/// JSON bodies (`.json` and `.jsonObject`) are kept as a ``JSON`` value, encoded with the
/// configuration's encoder when the request is queued. What is not stored: the cache policy (a
/// queued change is always sent to the server), the request id, the retry policy (the
/// outbox's applies), and what cannot outlive the process: multipart bodies, downloads and
/// resume data, which are refused.
public struct OutboxRequest: Sendable, Hashable, Codable {
    /// The HTTP method, for example `POST`.
    public var method: String
    /// The base URL.
    public var baseURL: URL
    /// The path below ``baseURL``.
    public var relativeURL: String
    /// The request's own header fields (no credential: those are refused).
    public var headers: [String: String]
    /// The parameters.
    public var parameters: Parameters
    /// The request's timeout in seconds; `nil` uses the configuration's.
    public var timeout: Double?
    /// Whether the configuration's token manager authorizes the request when it is sent.
    public var requiresAuthorization: Bool

    /// Stored parameters: ``ServerRequestParameter`` without what cannot be stored.
    public enum Parameters: Sendable, Hashable, Codable {
        /// No parameters.
        case none
        /// Query items.
        case query([String: Value])
        /// A JSON body (a JSON query for `GET`, `HEAD` and `DELETE`, as ``ServerRequestParameter`` says).
        case json(JSON)
        /// Form fields.
        case formURLEncoded([String: Value])
    }

    /// A stored ``QueryValue``.
    public indirect enum Value: Sendable, Hashable, Codable {
        /// ``QueryValue/string(_:)``.
        case string(String)
        /// ``QueryValue/int(_:)``.
        case int(Int)
        /// ``QueryValue/double(_:)``.
        case double(Double)
        /// ``QueryValue/bool(_:)``.
        case bool(Bool)
        /// ``QueryValue/array(_:)``.
        case array([Value])

        init(_ value: QueryValue) {
            switch value {
            case .string(let text): self = .string(text)
            case .int(let number): self = .int(number)
            case .double(let number): self = .double(number)
            case .bool(let flag): self = .bool(flag)
            case .array(let values): self = .array(values.map(Value.init))
            }
        }

        var queryValue: QueryValue {
            switch self {
            case .string(let text): .string(text)
            case .int(let number): .int(number)
            case .double(let number): .double(number)
            case .bool(let flag): .bool(flag)
            case .array(let values): .array(values.map(\.queryValue))
            }
        }
    }

    /// Stores `request`, refusing what cannot be stored or would put a secret on disk.
    ///
    /// - Throws: ``BaseServerError`` `invalidRequest` naming the header, parameter or feature
    ///   that was refused.
    public init(_ request: ServerRequest, encoder: JSONEncoder = JSONEncoder()) throws {
        guard request.downloadDestination == nil, !request.hasResumeData, request.rawBodyFile == nil,
            request.responseBodyStream == nil
        else {
            throw BaseServerError.invalidRequest(
                "a queued request cannot download to a file, resume or stream its response")
        }
        method = request.method.rawValue
        baseURL = request.baseUrl
        relativeURL = request.relativeUrl
        headers = request.headers
        timeout = request.timeout
        requiresAuthorization = request.requiresAuthorization
        switch request.parameters {
        case .none: parameters = .none
        case .query(let items): parameters = .query(items.mapValues(Value.init))
        case .formURLEncoded(let items): parameters = .formURLEncoded(items.mapValues(Value.init))
        case .jsonObject(let json): parameters = .json(json)
        case .json(let value):
            do {
                parameters = .json(try JSONDecoder().decode(JSON.self, from: try encoder.encode(value)))
            } catch {
                throw BaseServerError(
                    code: .invalidRequest, message: "the request's JSON body cannot be encoded", underlyingError: error)
            }
        case .multipart:
            throw BaseServerError.invalidRequest(
                "a queued request cannot carry a multipart body: its files may be gone when it is sent")
        }
        if request.rawBody != nil {
            throw BaseServerError.invalidRequest("a queued request cannot carry a raw body")
        }
        try OutboxSecrets.check(self)
    }

    /// The request to send, with the entry's `Idempotency-Key`.
    func serverRequest(idempotencyKey: String, retryPolicy: RetryPolicy) -> ServerRequest {
        var headers = headers
        if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Idempotency-Key") == .orderedSame }) {
            headers["Idempotency-Key"] = idempotencyKey
        }
        let parameters: ServerRequestParameter =
            switch self.parameters {
            case .none: .none
            case .query(let items): .query(items.mapValues(\.queryValue))
            case .json(let json): .jsonObject(json)
            case .formURLEncoded(let items): .formURLEncoded(items.mapValues(\.queryValue))
            }
        return ServerRequest(
            method: HTTPMethod(rawValue: method), baseUrl: baseURL, relativeUrl: relativeURL, headers: headers,
            parameters: parameters, timeout: timeout, cachePolicy: .serverOnly,
            requiresAuthorization: requiresAuthorization, retryPolicy: retryPolicy)
    }

    /// The `Idempotency-Key` the request itself carries, if any.
    var ownIdempotencyKey: String? {
        headers.first { $0.key.caseInsensitiveCompare("Idempotency-Key") == .orderedSame }?.value
    }
}
