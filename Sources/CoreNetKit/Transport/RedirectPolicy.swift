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
    /// The most redirects one request follows, as URLSession does.
    static let maximumRedirects = 20

    /// `redirect` without the credential headers when it leaves `previous`'s origin.
    static func strippingCredentials(_ redirect: URLRequest, from previous: URLRequest?) -> URLRequest {
        guard let to = redirect.url, let from = previous?.url, !isSameOrigin(from, to) else { return redirect }
        var stripped = redirect
        for name in credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    /// The next request if `status` and `location` redirect: 303, and 301/302 after POST, become GET (as in browsers
    /// and URLSession); credentials are stripped across origins.
    static func request(after request: TransportRequest, status: Int, location: String?) -> TransportRequest? {
        guard [301, 302, 303, 307, 308].contains(status), let location,
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            target.scheme == "http" || target.scheme == "https"
        else { return nil }
        var next = request
        next.url = target
        if status == 303 && request.method != .head || (status == 301 || status == 302) && request.method == .post {
            next.method = .get
            next.body = .none
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        if !isSameOrigin(request.url, target) {
            for name in credentialHeaders { next.setValue(nil, forHTTPHeaderField: name) }
        }
        return next
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
