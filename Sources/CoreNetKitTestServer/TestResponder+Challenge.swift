//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// `ANY /challenge/basic`: an HTTP authentication challenge on a kept-alive connection.
extension TestResponder {
    private static let wwwAuthenticate = HTTPFields.Element.Name("WWW-Authenticate")!

    /// `401` with `WWW-Authenticate: Basic realm="x"` and a JSON error body. FoundationNetworking
    /// (Swift 6.3.1) never completes this unless the delegate answers the challenge
    /// (swift-corelibs-foundation #5456).
    static func basicChallenge() -> Response {
        var headers = HTTPFields()
        headers[Self.wwwAuthenticate] = "Basic realm=\"x\""
        return Self.error(.unauthorized, code: "UNAUTHORIZED", message: "Sign in", headers: headers)
    }
}
