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
        return NetworkLogEntry(
            kind: .request, requestId: id, method: request.httpMethod ?? "GET",
            url: LogRedactor.redact(url: request.url),
            statusCode: nil, duration: nil, bytes: request.httpBody?.count,
            headers: LogRedactor.redact(headers: headers),
            body: bodies ? LogRedactor.loggedBody(of: request) : nil, error: nil, curl: LogRedactor.curl(request))
    }

    static func response(_ response: ServerResponse, id: String, bodies: Bool) -> NetworkLogEntry {
        // A response that reflects the request (an echo, an error quoting it) must not undo its redaction.
        // `response.request` builds a URLRequest on each read: read the sent values instead, and
        // build one only when a body is logged and its secrets must be masked.
        let sent = response.transportRequest
        let body =
            bodies
            ? LogRedactor.masking(
                LogRedactor.secretValues(of: sent.urlRequest), in: LogRedactor.redact(body: response.data)) : nil
        return NetworkLogEntry(
            kind: .response, requestId: id, method: sent.method.rawValue,
            url: LogRedactor.redact(url: sent.url), statusCode: response.statusCode,
            duration: response.duration,
            bytes: response.data.count, headers: LogRedactor.redact(headers: response.headers.fields),
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
