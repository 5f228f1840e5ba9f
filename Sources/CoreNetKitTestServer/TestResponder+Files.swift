//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Hummingbird

/// File routes: `POST /upload` (multipart), `POST /upload/raw`, `GET /download/:bytes`.
extension TestResponder {
    /// `POST /upload`: parses `multipart/form-data` while it streams in and describes every part.
    /// `totalBytes` is the length of the whole request body.
    static func uploadMultipart(_ request: Request) async throws -> Response {
        guard let contentType = request.headers[.contentType],
            let parsed = HeaderParameters(contentType),
            parsed.value.lowercased() == "multipart/form-data"
        else {
            throw Self.badMultipart("The Content-Type must be multipart/form-data")
        }
        guard let boundary = parsed["boundary"] else {
            throw Self.badMultipart("The Content-Type has no boundary parameter")
        }
        var parser: MultipartParser
        do {
            parser = try MultipartParser(boundary: boundary)
        } catch {
            throw Self.badMultipart(error.message)
        }
        var totalBytes = 0
        let parts: [MultipartParser.Part]
        do {
            for try await chunk in request.body {
                totalBytes += chunk.readableBytes
                try chunk.withUnsafeReadableBytes { bytes throws(MultipartParser.Failure) in
                    try parser.feed(bytes)
                }
            }
            parts = try parser.finish()
        } catch let error as MultipartParser.Failure {
            throw Self.badMultipart(error.message)
        }
        let described: [JSON] = parts.map { part in
            .object([
                ("name", .string(part.name)),
                ("filename", .optional(part.filename)),
                ("contentType", .optional(part.contentType)),
                ("size", .int(part.size)),
                ("sha256", .string(part.hasher.finalize().hex)),
                ("headers", .object(part.headers.map { ($0.0, .string($0.1)) })),
            ])
        }
        return Self.json(.object([("parts", .array(described)), ("totalBytes", .int(totalBytes))]))
    }

    /// `POST /upload/raw`: hashes the body while it streams in.
    static func uploadRaw(_ request: Request) async throws -> Response {
        var hasher = Crypto.SHA256()
        var size = 0
        for try await chunk in request.body {
            size += chunk.readableBytes
            chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }
        return Self.json(.object([("size", .int(size)), ("sha256", .string(hasher.finalize().hex))]))
    }

    /// `GET /download/:bytes`: streams the deterministic pattern in 64 KiB chunks with an exact
    /// Content-Length and `X-SHA256` (hashed once per size).
    static func download(_ text: String) throws -> Response {
        guard let count = Int(text), (0...DownloadPatternSource.maximumSize).contains(count) else {
            throw RouteError.invalidParameter("bytes", "an integer in 0...\(DownloadPatternSource.maximumSize)")
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[Self.sha256Header] = DownloadPatternSource.cachedSHA256Hex(count: count)
        return Response(status: .ok, headers: headers, body: DownloadPatternSource.body(count: count))
    }

    private static let sha256Header = HTTPFields.Element.Name("X-SHA256")!

    private static func badMultipart(_ message: String) -> RouteError {
        .badRequest("BAD_MULTIPART", message)
    }
}
