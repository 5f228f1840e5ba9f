//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird

/// A file that can be fetched in ranges: `GET /resumable/:key?bytes=N[&after=A&gate=G][&validator=V]`.
extension TestResponder {
    /// Serves version `v` of the file `key`: `bytes` bytes of the `/download` pattern shifted by
    /// `v` (byte `i` is pattern byte `i + v`), so every version has other bytes. ``TestServer/replaceResumable(_:)``
    /// moves it to the next version.
    ///
    /// - `validator`: `etag` (default, a strong ETag), `date` (Last-Modified only), `weak` (a
    ///   weak ETag only) or `none`.
    /// - `Range: bytes=S-` gets `206` with `Content-Range` for bytes `S..<bytes`, unless an
    ///   `If-Range` names another version (then `200` with the whole file); `S >= bytes` gets
    ///   `416`.
    /// - With `after` and `gate`, the body stops after byte `after` (of the whole file) and waits
    ///   at `gate` before sending the rest; with `after` and `drop=1` it drops the connection
    ///   there instead (`drops=N`: only in the first N responses for `key`).
    func resumable(_ key: String, request: Request) async throws -> Response {
        let query = QueryItems(request.uri.query)
        let count = try query.int("bytes", default: 1 << 20, in: 1...DownloadPatternSource.maximumSize)
        let after = try query.int("after", default: count, in: 0...count)
        let gate = query["gate"]
        // `drop=1` drops every response at `after`; `drops=N` only the first N for this key.
        let drops = try query.int("drops", default: 0, in: 0...1000)
        let drop =
            try query.bool("drop", default: false)
            || (drops > 0 && self.core.nextCounterValue("resumable-drops/" + key) <= drops)
        let version = self.core.cacheVersion("resumable/" + key)
        let eTag = "\"\(key)-v\(version)-\(count)\""
        let lastModified = Self.httpDate(Date(timeIntervalSince1970: 1_700_000_000 + Double(version) * 60))
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.acceptRanges] = "bytes"
        let validator = query["validator"] ?? "etag"
        switch validator {
        case "etag": headers[.eTag] = eTag
        case "weak": headers[.eTag] = "W/" + eTag
        case "date": headers[.lastModified] = lastModified
        default: break
        }
        var first = 0
        var status = HTTPResponse.Status.ok
        if let range = request.headers[.range], range.hasPrefix("bytes="), range.hasSuffix("-"),
            let requested = Int(range.dropFirst("bytes=".count).dropLast())
        {
            let current = validator == "date" ? lastModified : eTag
            if request.headers[.ifRange].map({ $0 == current }) ?? true {
                guard requested < count else {
                    headers[.contentRange] = "bytes */\(count)"
                    return Response(status: .rangeNotSatisfiable, headers: headers)
                }
                first = requested
                status = .partialContent
                headers[.contentRange] = "bytes \(requested)-\(count - 1)/\(count)"
            }
        }
        let core = self.core
        let start = first
        let body = ResponseBody(contentLength: count - start) { writer in
            let pause = (gate != nil || drop) && after > start && after < count ? after : count
            try await Self.writePattern(from: start, to: pause, shift: version, into: &writer)
            if pause < count, drop { throw ResumableDownloadDropped() }
            if pause < count, let gate {
                await core.passGate(gate)
                try await Self.writePattern(from: pause, to: count, shift: version, into: &writer)
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}

/// Thrown by the body writer to drop the connection mid-body.
private struct ResumableDownloadDropped: Error {}
