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

/// Removes secrets from what is logged: credential headers, and token-like query items, JSON
/// fields and form fields (`application/x-www-form-urlencoded`).
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
            || lower.hasSuffix("secret") || lower.hasSuffix("password")
    }

    /// `body` as text with token-like JSON fields or form fields replaced; any other body is
    /// returned as text, cut at 4 KiB.
    public static func redact(body: Data) -> String {
        if var json = try? JSON(data: body) {
            json = redact(json: json)
            if let data = try? json.encoded() { return String(decoding: data, as: UTF8.self) }
        }
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        if let form = redact(form: body) { return form }
        return body.count > 4096 ? text + "…" : text
    }

    /// `body` with the values of token-like fields replaced, when it reads as a form body
    /// (`name=value&name=value`, no whitespace); `nil` otherwise. A body that looks like a form
    /// is redacted whatever its `Content-Type` says, so a mislabelled form never leaks.
    static func redact(form body: Data) -> String? {
        guard !body.isEmpty, body.count <= 1 << 20 else { return nil }
        let text = String(decoding: body, as: UTF8.self)
        guard text.contains("="), !text.contains(where: { $0.isWhitespace }) else { return nil }
        let redacted = formItems(text).map { item -> String in
            guard item.rawValue != nil, isSecret(name: decodeFormComponent(item.rawName)) else {
                return item.rawName + (item.rawValue.map { "=" + $0 } ?? "")
            }
            return item.rawName + "=" + mask
        }.joined(separator: "&")
        return redacted.count > 4096 ? String(redacted.prefix(4096)) + "…" : redacted
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
        var lower = name.lowercased()
        // `user[password]`, `credentials[access_token]`: the innermost key decides.
        if lower.hasSuffix("]"), let open = lower.lastIndex(of: "[") {
            lower = String(lower[lower.index(after: open)..<lower.index(before: lower.endIndex)])
        }
        return secretNames.contains(lower) || lower.hasSuffix("token") || lower.hasSuffix("_key")
            || lower.hasSuffix("-key") || lower.hasSuffix("password") || lower.hasSuffix("secret")
    }

    /// The secret values `request` carries: credential header values (and the token after the
    /// scheme), and the values of token-like query items, JSON fields and form fields. A
    /// response that reflects one (an echo, an error page quoting the request) has it masked too.
    static func secretValues(of request: URLRequest) -> [String] {
        var values: [String] = []
        for (name, value) in request.allHTTPHeaderFields ?? [:] where isSecret(header: name) {
            values.append(value)
            if let space = value.firstIndex(of: " ") { values.append(String(value[value.index(after: space)...])) }
        }
        if let url = request.url, let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems {
            values += items.filter { isSecret(name: $0.name) }.compactMap(\.value)
        }
        if let body = request.httpBody {
            if let json = try? JSON(data: body) {
                collectSecrets(in: json, under: false, into: &values)
            } else if body.count <= 1 << 20 {
                for item in formItems(String(decoding: body, as: UTF8.self)) {
                    guard let raw = item.rawValue, isSecret(name: decodeFormComponent(item.rawName)) else { continue }
                    values.append(raw)
                    values.append(decodeFormComponent(raw))
                }
            }
        }
        return values.filter { $0.count >= 4 && $0 != mask }
    }

    /// The `name=value` items of a form body as written (a `name` without `=` has no value).
    private static func formItems(_ text: String) -> [(rawName: String, rawValue: String?)] {
        text.split(separator: "&", omittingEmptySubsequences: false).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count == 2 ? String(parts[1]) : nil)
        }
    }

    /// A form name or value decoded: `+` is a space, then percent-escapes.
    private static func decodeFormComponent(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    private static func collectSecrets(in json: JSON, under secret: Bool, into values: inout [String]) {
        switch json {
        case .object(let object):
            for (key, value) in object {
                collectSecrets(in: value, under: secret || isSecret(name: key), into: &values)
            }
        case .array(let array):
            for value in array { collectSecrets(in: value, under: secret, into: &values) }
        case .string(let text) where secret: values.append(text)
        default: break
        }
    }

    /// `text` with every occurrence of `secrets` replaced by ``mask``.
    static func masking(_ secrets: [String], in text: String) -> String {
        var text = text
        let variants = secrets + secrets.map { $0.replacingOccurrences(of: "/", with: "\\/") }
        for secret in variants.sorted(by: { $0.count > $1.count }) where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: mask)
        }
        return text
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
