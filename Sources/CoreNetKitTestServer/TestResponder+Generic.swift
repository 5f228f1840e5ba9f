//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// Generic routes: `/echo`, `/status/:code`, the fixed bodies, `/delay/:ms`, `/hold/:gate`, `/redirect`.
extension TestResponder {
    /// Bodies larger than this are counted by `/echo` but reported as `"body":null`.
    static let echoBodyLimit = 64 * 1024 * 1024

    /// `ANY /echo[/...]`: describes the request as JSON.
    static func echo(_ request: Request, path: String) async throws -> Response {
        var kept: [UInt8] = []
        var length = 0
        var truncated = false
        for try await chunk in request.body {
            length += chunk.readableBytes
            if !truncated {
                if kept.count + chunk.readableBytes <= Self.echoBodyLimit {
                    kept.append(contentsOf: chunk.readableBytesView)
                } else {
                    truncated = true
                    kept = []
                }
            }
        }
        var body = JSON.null
        if length > 0, !truncated, let text = String(validating: kept, as: UTF8.self) {
            body = .string(text)
        }

        var headerNames: [String] = []
        var headerValues: [String: String] = [:]
        if let authority = request.head.authority {
            headerNames.append("host")
            headerValues["host"] = authority
        }
        for field in request.headers {
            let name = field.name.canonicalName
            if let existing = headerValues[name] {
                headerValues[name] = existing + ", " + field.value
            } else {
                headerNames.append(name)
                headerValues[name] = field.value
            }
        }

        let rawQuery = request.uri.query
        let query = QueryItems(rawQuery).items.map { JSON.array([.string($0.0), .string($0.1)]) }
        return Self.json(
            .object([
                ("method", .string(request.method.rawValue)),
                ("path", .string(path)),
                ("rawQuery", .optional(rawQuery)),
                ("query", .array(query)),
                ("headers", .object(headerNames.map { ($0, .string(headerValues[$0]!)) })),
                ("body", body),
                ("bodyLength", .int(length)),
            ])
        )
    }

    /// `GET /status/:code?body=...&type=...`.
    static func status(_ codeText: String, query: QueryItems) throws -> Response {
        guard let code = Int(codeText), (200...599).contains(code) else {
            throw RouteError.invalidParameter("code", "an HTTP status code in 200...599")
        }
        return Self.text(query["body"] ?? "", status: HTTPResponse.Status(code: code), contentType: query["type"])
    }

    private static let html500Body = "<html><body><h1>Internal Server Error</h1></body></html>"
    private static let countBody = JSON.object([
        (
            "response",
            .object([
                ("count", .int(42)),
                ("name", .string("answers")),
                ("ratio", .number("0.5")),
                ("ok", .bool(true)),
                ("items", .array([DemoData.users[0].json])),
            ])
        )
    ]).byteBuffer
    private static let bodyErrorBody = ByteBuffer(
        string: #"{"error":{"error_code":5,"error_msg":"User authorization failed: invalid access_token"}}"#
    )

    /// The `{"error":{"error_code":5,...}}` body shared by `/body-error` and token rejections.
    static var errorCode5Body: ByteBuffer { Self.bodyErrorBody }

    /// `GET /html500`, `/malformed`, `/text`, `/no-content`, `/count`, `/body-error`.
    static func fixed(_ name: String) -> Response {
        switch name {
        case "html500":
            return Self.text(Self.html500Body, status: .internalServerError, contentType: "text/html; charset=utf-8")
        case "malformed":
            return Self.json(ByteBuffer(string: #"{"items": [1, 2,"#))
        case "text":
            return Self.text("hello", contentType: "text/plain; charset=utf-8")
        case "no-content":
            return Response(status: .noContent)
        case "count":
            return Self.json(Self.countBody)
        default:
            return Self.json(Self.bodyErrorBody)
        }
    }

    /// `GET /delay/:ms`: sleeps server-side, then `{"delayed":ms}`. Cancellation cuts the wait short.
    static func delay(_ text: String) async throws -> Response {
        guard let milliseconds = Int(text), (0...600_000).contains(milliseconds) else {
            throw RouteError.invalidParameter("ms", "an integer in 0...600000")
        }
        do {
            try await Task.sleep(for: .milliseconds(milliseconds))
        } catch {
            // Cancelled (server stopping): answer anyway.
        }
        return Self.json(.object([("delayed", .int(milliseconds))]))
    }

    /// `ANY /hold/:gate`: counts an arrival and waits until the gate is released or the server stops.
    func hold(_ gate: String) async -> Response {
        await self.core.passGate(gate)
        return Self.json(.object([("gate", .string(gate))]))
    }

    /// `/redirect?to=...&status=302[&cookie=<Set-Cookie value>…]` (any method): one `Set-Cookie` field per `cookie` item.
    static func redirect(query: QueryItems) throws -> Response {
        guard let target = query["to"], !target.isEmpty else {
            throw RouteError.invalidParameter("to", "a non-empty absolute or relative URL")
        }
        let code = try query.int("status", default: 302, in: 300...399)
        var headers = setCookieFields(query)
        headers[.location] = target
        return Response(status: HTTPResponse.Status(code: code), headers: headers)
    }
}
