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

extension NetworkLogEntry {
    static func request(_ request: URLRequest, id: String, bodies: Bool) -> NetworkLogEntry {
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
            (name: $0.key, value: $0.value)
        }
        let redacted = LogRedactor.redactRequest(headers: headers, url: request.url, body: request.httpBody)
        return NetworkLogEntry(
            kind: .request, requestId: id, method: request.httpMethod ?? "GET",
            url: LogRedactor.redact(url: request.url),
            statusCode: nil, duration: nil, bytes: request.httpBody?.count,
            headers: redacted.headers,
            body: bodies ? LogRedactor.loggedBody(of: request) : nil, error: nil, curl: LogRedactor.curl(request))
    }

    static func response(_ response: ServerResponse, id: String, bodies: Bool) -> NetworkLogEntry {
        // A response echoing the request must not undo its redaction: what it sent is masked here too.
        // `response.request` builds a URLRequest on each read: read the sent values instead.
        let sent = response.transportRequest
        let secrets = LogRedactor.secretValues(of: sent)
        let body =
            bodies
            ? LogRedactor.redact(body: response.data, contentType: response.headers["Content-Type"], secrets: secrets)
            : nil
        return NetworkLogEntry(
            kind: .response, requestId: id, method: sent.method.rawValue,
            url: LogRedactor.redact(url: sent.url), statusCode: response.statusCode,
            duration: response.duration,
            bytes: response.data.count, headers: LogRedactor.redact(headers: response.headers.fields, secrets: secrets),
            body: body, error: nil, curl: nil)
    }

    static func failure(_ request: URLRequest, error: BaseServerError, duration: Duration, id: String)
        -> NetworkLogEntry
    {
        NetworkLogEntry(
            kind: .failure, requestId: id, method: request.httpMethod ?? "GET",
            url: LogRedactor.redact(url: request.url),
            statusCode: nil, duration: duration, bytes: nil, headers: [], body: nil,
            error: error.errorDescription ?? "\(error.code)", curl: nil)
    }
}
