//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What happens to credentials when a response redirects.
enum RedirectPolicy {
    static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// `redirect` unchanged when it stays on the origin of `previous`; otherwise without the
    /// credential headers.
    static func strippingCredentials(_ redirect: URLRequest, from previous: URLRequest?) -> URLRequest {
        guard let to = redirect.url, let from = previous?.url, !isSameOrigin(from, to) else { return redirect }
        var stripped = redirect
        for name in credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
