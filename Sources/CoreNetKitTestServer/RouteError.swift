//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// An error a route throws to answer with `{"code":...,"message":...}` and a status.
struct RouteError: Error {
    let status: HTTPResponse.Status
    let code: String
    let message: String

    /// `400 Bad Request`.
    static func badRequest(_ code: String, _ message: String) -> RouteError {
        RouteError(status: .badRequest, code: code, message: message)
    }

    /// `400 {"code":"INVALID_PARAMETER",...}` for a bad query or path parameter.
    static func invalidParameter(_ name: String, _ requirement: String) -> RouteError {
        .badRequest("INVALID_PARAMETER", "Parameter '\(name)' must be \(requirement)")
    }

    /// `400 {"code":"BAD_JSON",...}`.
    static func badJSON(_ message: String) -> RouteError {
        .badRequest("BAD_JSON", message)
    }

    /// `413 {"code":"BODY_TOO_LARGE",...}`.
    static func bodyTooLarge(limit: Int) -> RouteError {
        RouteError(status: .contentTooLarge, code: "BODY_TOO_LARGE", message: "The request body exceeds \(limit) bytes")
    }

    /// The JSON error response.
    var response: Response {
        TestResponder.error(self.status, code: self.code, message: self.message)
    }
}
