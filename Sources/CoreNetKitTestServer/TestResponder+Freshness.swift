//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird

/// HTTP freshness helper: `/cache/fresh/:key`.
extension TestResponder {
    /// `GET /cache/fresh/:key`: `{"key":…,"value":n}` with a value that grows on every `200`.
    ///
    /// The query shapes the freshness headers: `cc` is the `Cache-Control` value, `age` the
    /// `Age` in seconds, `expires` an `Expires` date (seconds since 1970; any other text is sent
    /// as is). With `etag=1` the answer carries an `ETag` (`"key-vN"`, `N` moved on by
    /// `TestServer.bumpFreshVersion(_:)`) and a matching `If-None-Match` gets `304` with the same
    /// freshness headers. A request with `X-Fail: <status>` gets that status instead (a `5xx`
    /// outage). Hummingbird always sets `Date` to the server's time.
    func fresh(_ key: String, request: Request) -> Response {
        if let fail = request.headers[Self.failHeader], let code = Int(fail) {
            return Self.error(HTTPResponse.Status(code: code), code: "FAIL", message: "Failing as asked")
        }
        let query = QueryItems(request.uri.query)
        var headers = HTTPFields()
        if let cacheControl = query["cc"] { headers[.cacheControl] = cacheControl }
        if let age = query["age"] { headers[.age] = age }
        if let expires = query["expires"] {
            headers[.expires] = Double(expires).map { Self.httpDate(Date(timeIntervalSince1970: $0)) } ?? expires
        }
        if query["etag"] == "1" {
            let eTag = "\"\(key)-v\(self.core.cacheVersion("fresh/" + key))\""
            headers[.eTag] = eTag
            if request.headers[values: .ifNoneMatch].contains(eTag) {
                return Response(status: .notModified, headers: headers)
            }
        }
        let value = self.core.nextCounterValue("fresh/" + key)
        return Self.json(.object([("key", .string(key)), ("value", .int(value))]), headers: headers)
    }

    /// `date` in IMF-fixdate form.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    private static let failHeader = HTTPFields.Element.Name("X-Fail")!
}
