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

/// Removes secrets from what is logged: credential headers, token-like query items and
/// token-like JSON fields.
public enum LogRedactor {
    /// The text secrets are replaced with.
    public static let mask = "<redacted>"
    static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
    ]
    static let secretNames: Set<String> = [
        "token", "access_token", "accesstoken", "refresh_token", "refreshtoken", "id_token", "api_key",
        "apikey", "password", "secret", "client_secret", "sig", "signature", "authorization", "cookie", "set-cookie",
    ]

    /// `url` with the values of token-like query items (and any password) replaced by ``mask``.
    public static func redact(url: URL?) -> String {
        guard let url else { return "-" }
        var text = url.absoluteString
        if let password = url.password(percentEncoded: true), !password.isEmpty,
            let range = text.range(of: ":" + password + "@")
        {
            text.replaceSubrange(range, with: ":" + mask + "@")
        }
        guard let mark = text.firstIndex(of: "?") else { return text }
        let fragmentStart = text[mark...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: mark)..<fragmentStart]
        let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard parts.count == 2, isSecret(name: name.removingPercentEncoding ?? name) else { return String(item) }
            return name + "=" + mask
        }.joined(separator: "&")
        return String(text[..<mark]) + "?" + redacted + String(text[fragmentStart...])
    }

    /// `headers` with credential values replaced by ``mask``: the credential headers, and any
    /// whose name ends in `token` or `key` (`X-Auth-Token`, `Api-Key`).
    public static func redact(headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        headers.map { isSecret(header: $0.name) ? (name: $0.name, value: mask) : $0 }
    }

    static func isSecret(header name: String) -> Bool {
        let lower = name.lowercased()
        return secretHeaders.contains(lower) || lower.hasSuffix("token") || lower.hasSuffix("key")
    }

    /// `body` as text with token-like JSON fields replaced; a non-JSON body is returned as text,
    /// cut at 4 KiB.
    public static func redact(body: Data) -> String {
        if var json = try? JSON(data: body) {
            json = redact(json: json)
            if let data = try? json.encoded() { return String(decoding: data, as: UTF8.self) }
        }
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        return body.count > 4096 ? text + "…" : text
    }

    static func redact(json: JSON) -> JSON {
        switch json {
        case .object(let object):
            var result: [String: JSON] = [:]
            for (key, value) in object {
                result[key] = isSecret(name: key) ? .string(mask) : redact(json: value)
            }
            return .object(result)
        case .array(let array): return .array(array.map(redact(json:)))
        default: return json
        }
    }

    static func isSecret(name: String) -> Bool {
        let lower = name.lowercased()
        return secretNames.contains(lower) || lower.hasSuffix("token") || lower.hasSuffix("_key")
            || lower.hasSuffix("password")
    }

    /// The body of `request` as it is logged: redacted text, or for a multipart body only its
    /// size (its fields may hold secrets and its files are binary).
    static func loggedBody(of request: URLRequest) -> String? {
        guard let body = request.httpBody else { return nil }
        if let type = request.value(forHTTPHeaderField: "Content-Type"), type.lowercased().hasPrefix("multipart/") {
            return "<multipart body, \(body.count) bytes>"
        }
        return redact(body: body)
    }

    /// `request` as a `curl` command line with credentials redacted.
    public static func curl(_ request: URLRequest) -> String {
        var parts = ["curl", "-X", request.httpMethod ?? "GET"]
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
            (name: $0.key, value: $0.value)
        }
        for header in redact(headers: headers) {
            parts.append("-H")
            parts.append(quote("\(header.name): \(header.value)"))
        }
        if let body = loggedBody(of: request), !body.isEmpty {
            parts.append("--data-binary")
            parts.append(quote(body))
        }
        parts.append(quote(redact(url: request.url)))
        return parts.joined(separator: " ")
    }

    private static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
