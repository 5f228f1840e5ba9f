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

/// The secret values a request sent, so that a response echoing one has it masked.
extension LogRedactor {
    /// The values of credential headers (also the part after the scheme, and each cookie), token-like query items
    /// and body fields (in-memory bodies only). Values under 4 characters are left out: masking them would mask
    /// unrelated text.
    static func secretValues(of request: TransportRequest) -> [String] {
        var carrying: [Bool] = []
        return secretValues(
            headers: request.headers.fields, url: request.url, body: request.body.data, carrying: &carrying)
    }

    /// ``redact(headers:secrets:)`` with the request's ``secretValues(of:)``, and those values, testing
    /// each field only once.
    static func redactRequest(
        headers: [(name: String, value: String)], url: URL?, body: Data?
    ) -> (headers: [(name: String, value: String)], secrets: [String]) {
        var carrying: [Bool] = []
        let secrets = secretValues(headers: headers, url: url, body: body, carrying: &carrying)
        let redacted = zip(headers, carrying).map { field, carries in
            carries || secrets.contains { field.value.contains($0) } ? (name: field.name, value: mask) : field
        }
        return (redacted, secrets)
    }

    /// `carrying` gets whether each field carries a credential by its name or its value's scheme.
    private static func secretValues(
        headers: [(name: String, value: String)], url: URL?, body: Data?, carrying: inout [Bool]
    ) -> [String] {
        var values: [String] = []
        var contentType: String?
        carrying.reserveCapacity(headers.count)
        for field in headers {
            if HTTPHeaders.matches(field.name, "Content-Type") { contentType = field.value }
            let carries = carriesCredential(name: field.name, value: field.value, secrets: [])
            carrying.append(carries)
            guard carries else { continue }
            values.append(field.value)
            if let space = field.value.firstIndex(of: " ") {
                values.append(String(field.value[field.value.index(after: space)...]))
            }
            if endsCaseInsensitive(field.name, with: "cookie") {
                for pair in field.value.split(separator: ";") {
                    guard let equals = pair.firstIndex(of: "=") else { continue }
                    values.append(String(pair[pair.index(after: equals)...].trimmingHTTPWhitespace))
                }
            }
        }
        if let url, mayHaveQuery(url.absoluteString),
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
        {
            values += items.filter { isSecret(name: $0.name) }.compactMap(\.value)
        }
        if let body { values += secretValues(body: body, contentType: contentType) }
        return values.filter { $0.count >= 4 && $0 != mask }
    }

    /// The values of token-like fields of a JSON, form or multipart body.
    static func secretValues(body: Data, contentType: String?) -> [String] {
        var values: [String] = []
        if let boundary = multipartBoundary(contentType: contentType, body: body) {
            for part in multipartParts(body, boundary: boundary) {
                guard let name = part.name, let text = String(validating: part.content, as: UTF8.self) else {
                    continue
                }
                if isSecret(name: name) {
                    values.append(text)
                } else if part.filename == nil {
                    values += secretValues(body: Data(text.utf8), contentType: part.contentType)
                }
            }
        } else if let json = try? JSON(data: body) {
            collectSecrets(in: json, under: false, into: &values)
        } else if body.count <= 1 << 20 {
            for item in formItems(String(decoding: body, as: UTF8.self)) {
                guard let raw = item.rawValue, isSecret(name: decodeFormComponent(item.rawName)) else { continue }
                values.append(raw)
                values.append(decodeFormComponent(raw))
            }
        }
        return values
    }

    /// As written; a `name` without `=` has no value.
    static func formItems(_ text: String) -> [(rawName: String, rawValue: String?)] {
        text.split(separator: "&", omittingEmptySubsequences: false).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count == 2 ? String(parts[1]) : nil)
        }
    }

    /// `+` is a space, then percent-escapes.
    static func decodeFormComponent(_ text: String) -> String {
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
        case .int(let number) where secret: values.append(String(number))
        default: break
        }
    }
}
