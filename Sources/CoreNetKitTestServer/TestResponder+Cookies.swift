//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// `GET /cookies/set?cookie=<Set-Cookie value>[&cookie=…]`: answers `200 {"set":n}` with one
/// `Set-Cookie` field per `cookie` item, as given (`session=abc; Path=/; Max-Age=60`). `/echo`
/// shows which `Cookie` header a later request sent.
extension TestResponder {
    static func setCookies(query: QueryItems) -> Response {
        let headers = setCookieFields(query)
        return Self.json(.object([("set", .int(headers.count))]), headers: headers)
    }

    /// One `Set-Cookie` field per `cookie` item of `query`, as given (also used by `/redirect`).
    static func setCookieFields(_ query: QueryItems) -> HTTPFields {
        var headers = HTTPFields()
        for (name, cookie) in query.items where name == "cookie" {
            headers.append(HTTPFields.Element(name: .setCookie, value: cookie))
        }
        return headers
    }
}
