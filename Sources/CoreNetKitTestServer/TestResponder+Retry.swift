//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Hummingbird

/// Retry helper: `ANY /flaky/:key`.
extension TestResponder {
    /// `ANY /flaky/:key`: the first `failures` hits for `key` (query, default 2) answer
    /// `status` (default 503) with `Retry-After: <retryAfter>` when that is given, after reading
    /// the whole body; later hits answer `{"key":…,"attempt":n}`, or, with `kind=upload`, the
    /// multipart report of `/upload`. With `auth=1` a request without the current access token
    /// is rejected with `401` first, before it counts.
    func flaky(_ key: String, request: Request) async throws -> Response {
        let query = QueryItems(request.uri.query)
        if query["auth"] == "1", let rejection = self.rejection(unlessAuthorized: request) {
            return rejection
        }
        let attempt = self.core.nextCounterValue("flaky/" + key)
        let failures = query["failures"].flatMap { Int($0) } ?? 2
        if attempt <= failures {
            _ = try await request.body.collect(upTo: 256 * 1024 * 1024)
            var headers = HTTPFields()
            if let retryAfter = query["retryAfter"] { headers[.retryAfter] = retryAfter }
            let status = HTTPResponse.Status(code: query["status"].flatMap { Int($0) } ?? 503)
            return Self.error(status, code: "FLAKY", message: "Attempt \(attempt) of \(key) fails", headers: headers)
        }
        if query["kind"] == "upload" { return try await Self.uploadMultipart(request) }
        return Self.json(.object([("key", .string(key)), ("attempt", .int(attempt))]))
    }
}
