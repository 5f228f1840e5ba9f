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
        var headers = HTTPFields()
        let cookies = query.items.filter { $0.0 == "cookie" }.map(\.1)
        for cookie in cookies {
            headers.append(HTTPFields.Element(name: .setCookie, value: cookie))
        }
        return Self.json(.object([("set", .int(cookies.count))]), headers: headers)
    }
}
