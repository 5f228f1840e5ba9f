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

/// Receives one entry per request sent and one per response or failure.
///
/// Entries hold only text redacted by ``LogRedactor``: credential headers, token-like query items and body fields
/// never reach a logger. `log` is called on the pipeline's thread, not the callback queue; keep it fast.
public protocol NetworkLogger: Sendable {
    /// Whether entries should carry bodies (redacted) — off by default.
    var includesBodies: Bool { get }
    /// Records one entry.
    func log(_ entry: NetworkLogEntry)
}

extension NetworkLogger {
    public var includesBodies: Bool { false }
}

/// One log entry: a request going out, or its response or failure.
public struct NetworkLogEntry: Sendable {
    /// A request, response, failure or retry.
    public enum Kind: String, Sendable { case request, response, failure, retry }

    /// What the entry is about.
    public var kind: Kind
    /// The ``TaskPool`` id of the request.
    public var requestId: String
    /// The HTTP method.
    public var method: String
    /// The URL, token-like query items redacted.
    public var url: String
    /// The status, for responses.
    public var statusCode: Int?
    /// The time from send to response or failure.
    public var duration: Duration?
    /// The body size in bytes.
    public var bytes: Int?
    /// The headers, credentials redacted.
    public var headers: [(name: String, value: String)]
    /// The body as text, token-like fields redacted; only when the logger asks for bodies.
    public var body: String?
    /// The error's description, for failures.
    public var error: String?
    /// The request as a `curl` command line, credentials redacted (requests only).
    public var curl: String?
    /// For a retry: the number of the attempt about to be made, from 2.
    public var attempt: Int?
    /// For a retry: the most attempts there will be.
    public var attemptCount: Int?

    /// The entry of a retry about to wait `delay` before attempt `attempt` of `total`, because of `reason`.
    public static func retry(id: String, method: String, attempt: Int, of total: Int, delay: Duration, reason: String)
        -> NetworkLogEntry
    {
        NetworkLogEntry(
            kind: .retry, requestId: id, method: method, url: "", statusCode: nil, duration: delay, bytes: nil,
            headers: [], body: nil, error: reason, curl: nil, attempt: attempt, attemptCount: total)
    }

    /// The entry as one line, such as `← 200 GET http://127.0.0.1:8080/users (1.2 ms, 512 B) [req-1]`.
    public var line: String {
        switch kind {
        case .request:
            return "→ \(method) \(url)" + (bytes.map { " (\($0) B)" } ?? "") + " [\(requestId)]"
        case .response:
            let status = statusCode.map(String.init) ?? "-"
            return "← \(status) \(method) \(url) (\(Self.milliseconds(duration)), \(bytes ?? 0) B) [\(requestId)]"
        case .failure:
            return "✕ \(method) \(url) (\(Self.milliseconds(duration))): \(error ?? "failed") [\(requestId)]"
        case .retry:
            let attempt = attempt.map { "attempt \($0) of \(attemptCount ?? $0)" } ?? "another attempt"
            return
                "↻ \(method) \(attempt) in \(Self.milliseconds(duration)) after \(error ?? "a failure") [\(requestId)]"
        }
    }

    private static func milliseconds(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f ms", ms)
    }
}

/// A logger that prints each entry's line (and, if asked, its cURL form and body).
public struct PrintNetworkLogger: NetworkLogger {
    public let includesBodies: Bool
    private let includesCURL: Bool
    private let sink: @Sendable (String) -> Void

    /// Creates a logger writing to `sink` (standard output by default).
    public init(
        includesBodies: Bool = false, includesCURL: Bool = false,
        sink: @escaping @Sendable (String) -> Void = { print($0) }
    ) {
        self.includesBodies = includesBodies
        self.includesCURL = includesCURL
        self.sink = sink
    }

    public func log(_ entry: NetworkLogEntry) {
        sink(entry.line)
        if includesCURL, let curl = entry.curl { sink(curl) }
        if let body = entry.body, !body.isEmpty { sink(body) }
    }
}

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
