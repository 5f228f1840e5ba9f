//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// Interrupted downloads: `GET /transfer/partial/:bytes?after=N[&gate=G]`.
extension TestResponder {
    /// A download that announces `bytes` (exact Content-Length) of the `/download` pattern and
    /// sends the first `after` of them. With `gate`, it then waits at that gate and sends the
    /// rest once released; without, it drops the connection, so the body arrives truncated.
    func partialDownload(_ text: String, query: QueryItems) throws -> Response {
        guard let count = Int(text), (1...DownloadPatternSource.maximumSize).contains(count) else {
            throw RouteError.invalidParameter("bytes", "an integer in 1...\(DownloadPatternSource.maximumSize)")
        }
        let after = try query.int("after", default: count / 2, in: 0...(count - 1))
        let gate = query["gate"]
        let core = self.core
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        let body = ResponseBody(contentLength: count) { writer in
            try await Self.writePattern(from: 0, to: after, into: &writer)
            guard let gate else { throw PartialDownloadAborted() }
            await core.passGate(gate)
            try await Self.writePattern(from: after, to: count, into: &writer)
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Writes pattern bytes `start..<end`, each taken `shift` bytes further along the pattern
    /// (chunks start at multiples of 256, so slicing the shared chunk at `position % 256` gives
    /// the right bytes).
    static func writePattern(
        from start: Int, to end: Int, shift: Int = 0, into writer: inout any ResponseBodyWriter
    ) async throws {
        var position = start + shift
        let last = end + shift
        let chunk = DownloadPatternSource.chunk
        while position < last {
            let offset = position % 256
            let length = min(DownloadPatternSource.chunkSize - offset, last - position)
            try await writer.write(chunk.getSlice(at: chunk.readerIndex + offset, length: length)!)
            position += length
        }
    }
}

/// Thrown by the body writer to cut a response short.
private struct PartialDownloadAborted: Error {}
