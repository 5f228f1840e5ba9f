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

/// Cookies, done once in the pipeline for every transport (``NetworkConfiguration/cookieStorage``): the `Cookie` header
/// from the storage before a request is sent, the response's `Set-Cookie` fields into the storage after.
///
/// Matching follows RFC 6265 §5.4 here, not `HTTPCookieStorage.cookies(for:)`, which on Linux (FoundationNetworking,
/// Swift 6.3) compares the host only. Parsing is `HTTPCookie.cookies(withResponseHeaderFields:for:)` with three fixes
/// FoundationNetworking needs (Apple's Foundation does them itself): `Max-Age` sets the expiry (by the configuration's
/// clock), a cookie without `Path` gets its URL's default path (§5.1.4), and a `Domain` that does not domain-match the
/// host is rejected (§5.3 step 6). Ports are not isolated (§8.5).
enum CookieJar {
    /// The `Cookie` header for `url`: `own` (a request's own header), then the stored cookies that match `url` at
    /// `now`, longer paths first; `nil` when both are missing.
    static func header(for url: URL, own: String?, from storage: HTTPCookieStorage, now: Date) -> String? {
        let matching = (storage.cookies ?? []).filter { matches($0, url: url, now: now) }
            .sorted { $0.path.count > $1.path.count }
        guard !matching.isEmpty else { return own }
        let pairs = matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
        return own.map { $0 + "; " + pairs } ?? pairs
    }

    /// Stores the cookies of every `Set-Cookie` field in `headers` from `url`; an expired one removes its stored match.
    static func store(_ headers: HTTPHeaders, from url: URL, in storage: HTTPCookieStorage, now: Date) {
        guard storage.cookieAcceptPolicy != .never, let host = url.host?.lowercased() else { return }
        for field in headers.values(for: "Set-Cookie").flatMap(cookieFields) {
            for parsed in HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field], for: url) {
                guard let cookie = corrected(parsed, field: field, url: url, now: now),
                    domainMatches(host: host, cookieDomain: cookie.domain)
                else { continue }
                if let expiry = cookie.expiresDate, expiry <= now {
                    for stored in storage.cookies ?? []
                    where stored.name == cookie.name && stored.domain == cookie.domain && stored.path == cookie.path {
                        storage.deleteCookie(stored)
                    }
                } else {
                    storage.setCookie(cookie)
                }
            }
        }
    }

    /// The cookies of one `Set-Cookie` value, which URLSession folds from several fields with `", "`: split at each
    /// comma that a `name=` follows (a comma inside an `Expires` date is followed by a day number, not by `name=`).
    static func cookieFields(_ value: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var rest = Substring(value)
        while let comma = rest.firstIndex(of: ",") {
            current += rest[..<comma]
            let after = rest[rest.index(after: comma)...]
            let name = after.drop { $0 == " " }
            let token = name.prefix { $0 != "=" && $0 != ";" && $0 != "," && $0 != " " }
            if !token.isEmpty && name.dropFirst(token.count).first == "=" {
                fields.append(current)
                current = ""
            } else {
                current += ","
            }
            rest = after
        }
        fields.append(current + rest)
        return fields.map { String($0.trimmingHTTPWhitespace) }.filter { !$0.isEmpty }
    }

    /// Whether `cookie` is sent to `url` at `now` (RFC 6265 §5.4).
    static func matches(_ cookie: HTTPCookie, url: URL, now: Date) -> Bool {
        guard let host = url.host?.lowercased(), domainMatches(host: host, cookieDomain: cookie.domain) else {
            return false
        }
        if cookie.isSecure, url.scheme?.lowercased() != "https" { return false }
        if let expiry = cookie.expiresDate, expiry <= now { return false }
        return pathMatches(requestPath: url.path.isEmpty ? "/" : url.path, cookiePath: cookie.path)
    }

    /// A host-only cookie (no leading dot) matches its host alone; `.example.com` also subdomains, never an IP address.
    static func domainMatches(host: String, cookieDomain: String) -> Bool {
        let domain = cookieDomain.lowercased()
        guard domain.hasPrefix(".") else { return host == domain }
        return host == domain.dropFirst() || host.hasSuffix(domain) && !isIPAddress(host)
    }

    /// RFC 6265 §5.1.4: equal, or the cookie's path is a prefix of the request's ending in `/` or followed by `/`.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// RFC 6265 §5.1.4: the URL's path up to, not including, its last `/`; `/` if none past the first character.
    static func defaultPath(of url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// `cookie` with its expiry from `Max-Age` (at `now`) and its default path if unnamed; `nil` if it can't be remade.
    private static func corrected(_ cookie: HTTPCookie, field: String, url: URL, now: Date) -> HTTPCookie? {
        let namesPath = field.split(separator: ";").dropFirst().contains {
            $0.split(separator: "=", maxSplits: 1).first?.trimmingHTTPWhitespace.lowercased() == "path"
        }
        var properties = cookie.properties ?? [:]
        var changed = false
        if let maxAge = properties[.maximumAge].flatMap({ Int("\($0)") }) {
            properties[.expires] = now.addingTimeInterval(TimeInterval(maxAge))
            properties[.maximumAge] = nil
            changed = true
        }
        if !namesPath {
            properties[.path] = defaultPath(of: url)
            changed = true
        }
        return changed ? HTTPCookie(properties: properties) : cookie
    }

    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }
}
