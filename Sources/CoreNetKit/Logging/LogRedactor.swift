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

/// Removes secrets from what is logged, monitored or traced: every log entry, monitor event and span attribute goes
/// through ``redact(url:)``, ``redact(headers:)`` or ``redact(body:)``. A response that echoes a secret value of its
/// request, in any header or anywhere in its body, has it masked too.
public enum LogRedactor {
    /// The text secrets are replaced with.
    public static let mask = "<redacted>"
    static let secretHeaders = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"]
    static let secretHeaderEndings: [StaticString] = ["token", "key", "secret", "password", "cookie", "authorization"]
    static let secretNames: Set<String> = [
        "token", "access_token", "accesstoken", "refresh_token", "refreshtoken", "id_token", "api_key",
        "apikey", "password", "secret", "client_secret", "sig", "signature", "authorization", "cookie", "set-cookie",
    ]
    /// Authentication schemes (RFC 9110 §11, IANA registry) followed by a credential in a header value.
    static let credentialSchemes: [StaticString] = [
        "bearer ", "basic ", "digest ", "negotiate ", "ntlm ", "token ", "hoba ", "mutual ", "vapid ", "scram-sha-",
        "aws4-hmac-sha256 ", "hawk ", "dpop ",
    ]
    /// Headers whose value names a scheme without carrying a credential.
    static let challengeHeaders = ["www-authenticate", "proxy-authenticate"]

    /// `url` with its password and the values of token-like query items replaced by ``mask``; `"-"` for `nil`.
    public static func redact(url: URL?) -> String {
        guard let url else { return "-" }
        var text = url.absoluteString
        if let password = url.password(percentEncoded: true), !password.isEmpty,
            let range = text.range(of: ":" + password + "@")
        {
            text.replaceSubrange(range, with: ":" + mask + "@")
        }
        return redact(urlText: text)
    }

    /// For text that may not parse as a URL (an invalid request's).
    static func redact(urlText text: String) -> String {
        guard mayHaveQuery(text), let mark = text.firstIndex(of: "?") else { return text }
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

    /// `headers` with credential values replaced by ``mask``, in requests and responses alike: fields named
    /// `Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key` or ending in `token`, `key`, `secret` or `password`, and
    /// fields of any name whose value starts with an authentication scheme (`Bearer …`, `Basic …`).
    public static func redact(headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        redact(headers: headers, secrets: [])
    }

    /// Also masks fields containing one of `secrets` (``secretValues(of:)``), such as a response header
    /// echoing the request's `Authorization`.
    static func redact(headers: [(name: String, value: String)], secrets: [String]) -> [(name: String, value: String)] {
        headers.map { field in
            carriesCredential(name: field.name, value: field.value, secrets: secrets)
                ? (name: field.name, value: mask) : field
        }
    }

    /// By its name, its value's scheme, or holding one of `secrets`.
    static func carriesCredential(name: String, value: String, secrets: [String]) -> Bool {
        isSecret(header: name)
            || (!challengeHeaders.contains { HTTPHeaders.matches(name, $0) } && startsWithCredentialScheme(value))
            || secrets.contains { $0.count >= 4 && value.contains($0) }
    }

    /// Compares only schemes as long as the value's first word and space: most values match none by length.
    static func startsWithCredentialScheme(_ value: String) -> Bool {
        var value = value
        let space = value.withUTF8 { $0.prefix(17).firstIndex(of: UInt8(ascii: " ")) }
        return credentialSchemes.contains { scheme in
            let count = scheme.utf8CodeUnitCount
            let spaced = scheme.utf8Start[count - 1] == UInt8(ascii: " ")
            return (!spaced || space == count - 1) && startsCaseInsensitive(value, with: scheme)
        }
    }

    static func isSecret(header name: String) -> Bool {
        secretHeaders.contains { HTTPHeaders.matches(name, $0) }
            || secretHeaderEndings.contains { endsCaseInsensitive(name, with: $0) }
    }

    /// `prefix` is lowercase ASCII.
    static func startsCaseInsensitive(_ text: String, with prefix: StaticString) -> Bool {
        spells(prefix, in: text, atEnd: false)
    }

    /// `suffix` is lowercase ASCII.
    static func endsCaseInsensitive(_ text: String, with suffix: StaticString) -> Bool {
        spells(suffix, in: text, atEnd: true)
    }

    /// Compared on the bytes: lowercasing each field (most carry no credential) would allocate a string.
    private static func spells(_ word: StaticString, in text: String, atEnd: Bool) -> Bool {
        let count = word.utf8CodeUnitCount
        guard text.utf8.count >= count else { return false }
        func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            let start = atEnd ? bytes.count - count : 0
            for offset in 0..<count where asciiLowercase(bytes[start + offset]) != word.utf8Start[offset] {
                return false
            }
            return true
        }
        return text.utf8.withContiguousStorageIfAvailable(check) ?? Array(text.utf8).withUnsafeBufferPointer(check)
    }

    /// Looked for on the bytes, not the characters: most URLs have no query.
    static func mayHaveQuery(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "?")) }
            ?? text.utf8.contains(UInt8(ascii: "?"))
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
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

    static func masking(_ secrets: [String], in text: String) -> String {
        guard !secrets.isEmpty else { return text }
        var text = text
        let variants = secrets + secrets.map { $0.replacingOccurrences(of: "/", with: "\\/") }
        for secret in variants.sorted(by: { $0.count > $1.count }) where secret.count >= 4 && text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: mask)
        }
        return text
    }

    /// `request` as a `curl` command line with credentials redacted.
    public static func curl(_ request: URLRequest) -> String {
        var parts = ["curl", "-X", request.httpMethod ?? "GET"]
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
            (name: $0.key, value: $0.value)
        }
        for header in redactRequest(headers: headers, url: request.url, body: request.httpBody).headers {
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
