//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird

/// Routes every request of a ``TestServer``. Dispatch is a plain switch on the first path
/// segment (no router, no middleware, no per-request logging) so the server stays fast and
/// accepts any method. Each request is counted by method and path before it is routed.
///
/// Routes live in extensions: `TestResponder+Generic`, `+Demo`, `+Cache`, `+Auth`,
/// `+Pagination`, `+Files`, `+Transfer`, `+Stream`, `+Events`, `+Secrets` and `+Cookies`. `/v1/…` is routed as
/// `/…` (the echo still reports the full path). Unknown routes answer `404 {"code":"NOT_FOUND",...}`.
struct TestResponder: HTTPResponder {
    typealias Context = TestRequestContext

    /// The shared server state.
    let core: ServerCore

    static let jsonContentType = "application/json; charset=utf-8"
    /// Largest body collected in memory by the JSON routes.
    static let jsonBodyLimit = 4 * 1024 * 1024

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.uri.path
        self.core.recordHit(method: request.method.rawValue, path: path)
        var response: Response
        do {
            // `/v1/…` is routed as `/…`: a base URL with a path (`http://127.0.0.1:port/v1`).
            response = try await self.route(
                request, path: path.hasPrefix("/v1/") ? String(path.dropFirst(3)) : path, context: context)
        } catch let error as RouteError {
            response = error.response
        } catch {
            response = Self.error(.internalServerError, code: "INTERNAL", message: "\(error)")
        }
        if request.method == .head {
            response = response.createHeadResponse()
        }
        let code = response.status.code
        if code == 204 || code == 304 || (100..<200).contains(code) {
            // These statuses never carry a body (RFC 9110 §6.4.1) nor, here, a Content-Length.
            response.body = ResponseBody()
            response.headers[.contentLength] = nil
        }
        return response
    }

    private func route(_ request: Request, path: String, context: Context) async throws -> Response {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let first = segments.first ?? ""
        let rest = Array(segments.dropFirst())
        let method = request.method
        let isGet = method == .get || method == .head
        let isPost = method == .post

        switch (first, rest.count) {
        case ("bench", 1) where isGet && rest[0] == "page":
            return Self.json(self.core.benchPage)
        case ("echo", _):
            return try await Self.echo(request, path: request.uri.path)
        case ("users", 0) where isGet:
            return Self.listUsers()
        case ("users", 0) where isPost:
            return try await Self.createUser(request)
        case ("users", 1) where isGet:
            return Self.user(Self.parameter(rest[0]))
        case ("orders", 0) where isPost:
            return Self.orderLimit()
        case ("status", 1) where isGet:
            return try Self.status(Self.parameter(rest[0]), query: QueryItems(request.uri.query))
        case ("html500", 0) where isGet, ("malformed", 0) where isGet, ("text", 0) where isGet,
            ("no-content", 0) where isGet, ("count", 0) where isGet, ("body-error", 0) where isGet:
            return Self.fixed(String(first))
        case ("delay", 1) where isGet:
            return try await Self.delay(Self.parameter(rest[0]))
        case ("hold", 1):
            return await self.hold(Self.parameter(rest[0]))
        case ("redirect", 0):
            return try Self.redirect(query: QueryItems(request.uri.query))
        case ("counter", 1) where isGet:
            let key = Self.parameter(rest[0])
            return Self.json(.object([("key", .string(key)), ("value", .int(self.core.nextCounterValue(key)))]))
        case ("cache", 2) where isGet && rest[0] == "etag":
            return self.etag(Self.parameter(rest[1]), request: request)
        case ("cache", 1) where isGet && rest[0] == "no-store":
            return self.noStore()
        case ("cache", 1) where isGet && rest[0] == "vary":
            return self.vary(request)
        case ("cache", 2) where isGet && rest[0] == "outage":
            return self.outage(Self.parameter(rest[1]), request: request)
        case ("cache", 2) where isGet && rest[0] == "fresh":
            return self.fresh(Self.parameter(rest[1]), request: request)
        case ("auth", 1) where isPost && rest[0] == "refresh":
            return try await self.refresh(request)
        case ("auth", 1) where isPost && rest[0] == "login":
            return try await self.login(request)
        case ("outbox", 3) where isPost && rest[0] == "apply":
            return try await self.outboxApply(
                queue: Self.parameter(rest[1]), seq: Self.parameter(rest[2]), request: request, context: context)
        case ("flaky", 1):
            return try await self.flaky(Self.parameter(rest[0]), request: request)
        case ("challenge", 1) where rest[0] == "basic":
            return Self.basicChallenge()
        case ("family", 1) where isPost && rest[0] == "refresh":
            return try await self.familyRefresh(request)
        case ("family", 2) where rest[0] == "protected":
            return self.familyProtected(Self.parameter(rest[1]), request: request)
        case ("protected", 1):
            return self.protected(Self.parameter(rest[0]), request: request)
        case ("protected-after", 2):
            return await self.protectedAfterGate(Self.parameter(rest[0]), id: Self.parameter(rest[1]), request: request)
        case ("items", 0) where isGet:
            return try Self.items(query: QueryItems(request.uri.query))
        case ("paged-items", 0) where isGet:
            return try await self.pagedItems(query: QueryItems(request.uri.query))
        case ("feed", 0) where isGet:
            return try self.feed(query: QueryItems(request.uri.query))
        case ("cursor-loop", 0) where isGet:
            return Self.cursorLoop(query: QueryItems(request.uri.query))
        case ("secrets", 1) where rest[0] == "echo":
            return try await Self.echoSecrets(request)
        case ("cookies", 1) where isGet && rest[0] == "set":
            return Self.setCookies(query: QueryItems(request.uri.query))
        case ("upload", 0) where isPost:
            return try await Self.uploadMultipart(request)
        case ("upload", 1) where isPost && rest[0] == "raw":
            return try await Self.uploadRaw(request)
        case ("download", 1) where isGet:
            return try Self.download(Self.parameter(rest[0]))
        case ("resumable", 1) where isGet:
            return try await self.resumable(Self.parameter(rest[0]), request: request)
        case ("events", 1) where isGet && rest[0] == "sse":
            return try self.serverSentEvents(request)
        case ("events", 1) where isGet && rest[0] == "jsonl":
            return try self.jsonLines(request)
        case ("events", 1) where isGet && rest[0] == "bytes":
            return try self.streamedBytes(request)
        case ("stream", 2) where isPost && rest[0] == "upload":
            return try await self.heldUpload(Self.parameter(rest[1]), request: request)
        case ("transfer", 2) where isGet && rest[0] == "partial":
            return try self.partialDownload(Self.parameter(rest[1]), query: QueryItems(request.uri.query))
        default:
            return Self.error(.notFound, code: "NOT_FOUND", message: "No route for \(method.rawValue) \(path)")
        }
    }

    // MARK: Helpers shared by the routes

    /// A percent-decoded path segment.
    static func parameter(_ segment: Substring) -> String {
        QueryItems.decode(segment)
    }

    /// A JSON response from an encoded body.
    static func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = Self.jsonContentType
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// A JSON response from a value.
    static func json(_ value: JSON, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        self.json(value.byteBuffer, status: status, headers: headers)
    }

    /// A `{"code":...,"message":...}` response.
    static func error(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:])
        -> Response
    {
        self.json(.object([("code", .string(code)), ("message", .string(message))]), status: status, headers: headers)
    }

    /// A response with a text body and an optional content type.
    static func text(_ body: String, status: HTTPResponse.Status = .ok, contentType: String?) -> Response {
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// Collects the request body into memory, answering 413 above `limit` bytes.
    static func collectBody(_ request: Request, limit: Int = jsonBodyLimit) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in request.body {
            guard bytes.count + chunk.readableBytes <= limit else { throw RouteError.bodyTooLarge(limit: limit) }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        return bytes
    }

    /// Collects and parses a JSON body (Foundation's `JSONDecoder`), answering `400 BAD_JSON` when it
    /// is not a JSON object.
    static func jsonObjectBody(_ request: Request) async throws -> JSON {
        let bytes = try await self.collectBody(request)
        let value: JSON
        do {
            value = try JSONDecoder().decode(JSON.self, from: Data(bytes))
        } catch {
            throw RouteError.badJSON("The body is not valid JSON: \(error)")
        }
        guard case .object = value else { throw RouteError.badJSON("The body must be a JSON object") }
        return value
    }
}
