//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Keeps credentials out of an outbox's storage: a request that would write one is refused at
/// `enqueue`, before anything is stored. What counts as a credential is what ``LogRedactor``
/// redacts: header fields by name (`Authorization`, `Cookie`, `X-Api-Key`, names ending in
/// `token`, `key`, `secret`, `password`) or by value (`Bearer …`, `Basic …`), token-like query,
/// form and JSON field names, and a password in the URL. Such values are added when the request
/// is sent: by the token manager (``AccessSafeRequestManager``) or a ``RequestPreparator``.
enum OutboxSecrets {
    static func check(_ request: OutboxRequest) throws {
        for (name, value) in request.headers where name.caseInsensitiveCompare("Idempotency-Key") != .orderedSame {
            if LogRedactor.carriesCredential(name: name, value: value, secrets: []) {
                throw refused("the header \(name)")
            }
        }
        for url in [request.baseURL, URL(string: request.relativeURL, relativeTo: request.baseURL)] {
            guard let url else { continue }
            if url.password(percentEncoded: true).map({ !$0.isEmpty }) == true {
                throw refused("a password in the URL")
            }
            let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
            if let item = items.first(where: { LogRedactor.isSecret(name: $0.name) }) {
                throw refused("the query item \(item.name)")
            }
        }
        switch request.parameters {
        case .none: break
        case .query(let items), .formURLEncoded(let items):
            if let name = items.keys.first(where: LogRedactor.isSecret(name:)) {
                throw refused("the parameter \(name)")
            }
        case .json(let json):
            if let name = secretName(in: json) { throw refused("the JSON field \(name)") }
        }
    }

    private static func secretName(in json: JSON) -> String? {
        switch json {
        case .object(let object):
            for (key, value) in object {
                if LogRedactor.isSecret(name: key) { return key }
                if let inner = secretName(in: value) { return inner }
            }
            return nil
        case .array(let values):
            return values.lazy.compactMap(secretName(in:)).first
        default:
            return nil
        }
    }

    private static func refused(_ what: String) -> BaseServerError {
        BaseServerError.invalidRequest(
            "\(what) carries a credential and an outbox never stores one: add it when the request is sent "
                + "(the token manager or a RequestPreparator)")
    }
}
