//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The parameters of a ``ServerRequest`` and how they are encoded.
///
/// `GET`, `HEAD` and `DELETE` put parameters in the query string (a JSON object flattened into items); `POST`, `PUT`
/// and `PATCH` send `.json`/`.jsonObject` as a JSON body (`application/json`) and `.formURLEncoded` as a form body.
/// `.query` always goes in the query string; `.multipart` is a body for `POST`, `PUT` and `PATCH` only.
public enum ServerRequestParameter: Sendable {
    /// No parameters.
    case none
    /// Query items, sorted by key; arrays become repeated keys.
    case query([String: QueryValue])
    /// An `Encodable` value sent as JSON.
    case json(any Encodable & Sendable)
    /// A ``JSON`` value sent as JSON.
    case jsonObject(JSON)
    /// Form fields sent as `application/x-www-form-urlencoded`.
    case formURLEncoded([String: QueryValue])
    /// A `multipart/form-data` body of text fields, data and files; large ones stream from disk (``MultipartData``).
    case multipart(MultipartData)
}

/// A value of a query-string or form parameter.
///
/// Arrays become repeated keys (`tag=a&tag=b`), Booleans `true`/`false`, numbers their plain decimal form.
public enum QueryValue: Sendable, Hashable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case array([QueryValue])

    /// The textual forms of this value, one per repeated key.
    var renderedValues: [String] {
        switch self {
        case .string(let value): return [value]
        case .int(let value): return [String(value)]
        case .double(let value): return [String(value)]
        case .bool(let value): return [value ? "true" : "false"]
        case .array(let values): return values.flatMap(\.renderedValues)
        }
    }
}

extension QueryValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: QueryValue...) { self = .array(elements) }
}
