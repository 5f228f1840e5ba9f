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
