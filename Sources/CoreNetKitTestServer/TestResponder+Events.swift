//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// Streamed responses: `GET /events/sse`, `/events/jsonl` and `/events/bytes`. Every body is chunked (no `Content-Length`) and written in pieces of
/// irregular sizes, so a line or an event is often split across chunks.
extension TestResponder {
    /// The sizes the stream routes cut their bodies into, in turn.
    static let irregularChunkSizes = [1, 3, 7, 64, 2, 500, 13, 1024, 5, 300]

    /// `GET /events/sse?count=N` — Server-Sent Events `1...N` as ``EventScript/event(_:ended:)`` writes
    /// them, after a byte order mark. `Last-Event-ID: k` starts after event `k` (each value seen is
    /// counted at gate `"last-event-id:k"`). `dropAfter=M` drops the connection after event `M`
    /// (with `cutInside=1`, after event `M + 1` without the empty line that ends it);
    /// `silentAfter=M&gate=G` goes silent after event `M` until gate `G` opens; with `key=K`, a
    /// write that fails (the client closed the connection) is counted at gate `"closed:K"`; `protected=1`
    /// answers `401` unless the request carries the current access token; `failFirst=KEY` answers
    /// the first request for `KEY` with `503`; `reconnectStatus=S` answers every request that
    /// carries a `Last-Event-ID` with status `S` (`204`: no body).
    func serverSentEvents(_ request: Request) throws -> Response {
        let query = QueryItems(request.uri.query)
        let count = try query.int("count", default: 10, in: 1...1_000_000)
        let dropAfter = try query.int("dropAfter", default: 0, in: 0...1_000_000)
        let silentAfter = try query.int("silentAfter", default: 0, in: 0...1_000_000)
        let cutInside = try query.bool("cutInside", default: false)
        let gate = query["gate"]
        if try query.bool("protected", default: false), let rejection = self.rejection(unlessAuthorized: request) {
            return rejection
        }
        if let key = query["failFirst"], self.core.nextCounterValue("events-fail-\(key)") == 1 {
            return Self.error(.serviceUnavailable, code: "UNAVAILABLE", message: "Try again")
        }
        var start = 1
        if let lastId = request.headers.first(where: { $0.name.canonicalName == "last-event-id" })?.value {
            self.core.countArrival(at: "last-event-id:\(lastId)")
            if let status = query["reconnectStatus"].flatMap({ Int($0) }) {
                return status == 204
                    ? Response(status: .noContent)
                    : Self.error(.init(code: status), code: "RECONNECT", message: "Answered \(status) on reconnection")
            }
            start = (Int(lastId) ?? 0) + 1
        }
        let first = start
        let core = self.core
        let key = query["key"]
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            do {
                var pieces = PieceWriter()
                if first == 1 { try await pieces.write("\u{FEFF}", to: &writer) }
                var index = first
                while index <= count {
                    try await pieces.write(EventScript.event(index), to: &writer)
                    if index == dropAfter {
                        if cutInside, index < count {
                            try await pieces.write(EventScript.event(index + 1, ended: false), to: &writer)
                        }
                        try await pieces.flush(to: &writer)
                        throw StreamDropped()
                    }
                    if index == silentAfter, let gate {
                        try await pieces.flush(to: &writer)
                        await core.passGate(gate)
                    }
                    index += 1
                }
                try await pieces.flush(to: &writer)
                try await writer.finish(nil)
            } catch let error as StreamDropped {
                throw error
            } catch {
                if let key { core.countArrival(at: "closed:\(key)") }
                throw error
            }
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `GET /events/jsonl?count=N` — JSON Lines `{"id":i,"name":"item i"}` for `1...N`, ending
    /// in `CRLF` for even `i` and `LF` for odd, a blank line after every tenth, and no line break
    /// after the last.
    func jsonLines(_ request: Request) throws -> Response {
        let count = try QueryItems(request.uri.query).int("count", default: 10, in: 1...1_000_000)
        var headers = HTTPFields()
        headers[.contentType] = "application/jsonl"
        let body = ResponseBody { writer in
            var pieces = PieceWriter()
            for index in 1...count {
                var line = "{\"id\":\(index),\"name\":\"item \(index)\"}"
                if index < count { line += index % 2 == 0 ? "\r\n" : "\n" }
                if index % 10 == 0, index < count { line += "\n" }
                try await pieces.write(line, to: &writer)
            }
            try await pieces.flush(to: &writer)
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `GET /events/bytes?total=N` — `N` bytes of `x` in 64 KiB chunks, chunked (no length).
    func streamedBytes(_ request: Request) throws -> Response {
        let total = try QueryItems(request.uri.query).int("total", default: 1 << 20, in: 1...(1 << 34))
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        let body = ResponseBody { writer in
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 << 10)
            var left = total
            while left > 0 {
                let size = min(left, chunk.readableBytes)
                try await writer.write(size == chunk.readableBytes ? chunk : chunk.getSlice(at: 0, length: size)!)
                left -= size
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}

/// The text of event `index` of `/events/sse`. Public so the tests can state what the client
/// must read without parsing it themselves.
public enum EventScript {
    /// Event `index`: a comment before every 7th; `id:` with a space for odd `index`, without for
    /// even; `event: tick` for every 3rd; two `data` lines (`event i` and `line two of i`) and a
    /// third, `  indented i` with its leading space kept, for every 5th; `retry: 5` in event 1;
    /// lines end in `CRLF`, `LF` or `CR` as `index % 3` is 0, 1 or 2. Without `ended`, the empty
    /// line that ends the event is left out.
    public static func event(_ index: Int, ended: Bool = true) -> String {
        let end = ["\r\n", "\n", "\r"][index % 3]
        var text = ""
        if index % 7 == 0 { text += ": keep-alive \(index)" + end }
        text += (index % 2 == 1 ? "id: \(index)" : "id:\(index)") + end
        if index % 3 == 0 { text += "event: tick" + end }
        text += "data: event \(index)" + end
        text += "data:line two of \(index)" + end
        if index % 5 == 0 { text += "data:  indented \(index)" + end }
        if index == 1 { text += "retry: 5" + end }
        return ended ? text + end : text
    }
}

/// Buffers text and writes it in pieces of ``TestResponder/irregularChunkSizes``.
private struct PieceWriter {
    private var pending: [UInt8] = []
    private var turn = 0

    mutating func write(_ text: String, to writer: inout any ResponseBodyWriter) async throws {
        pending.append(contentsOf: text.utf8)
        while pending.count >= TestResponder.irregularChunkSizes[turn] {
            try await emit(TestResponder.irregularChunkSizes[turn], to: &writer)
        }
    }

    /// Writes whatever is buffered.
    mutating func flush(to writer: inout any ResponseBodyWriter) async throws {
        if !pending.isEmpty { try await emit(pending.count, to: &writer) }
    }

    private mutating func emit(_ size: Int, to writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ByteBuffer(bytes: pending.prefix(size)))
        pending.removeFirst(size)
        turn = (turn + 1) % TestResponder.irregularChunkSizes.count
    }
}

/// Thrown by a body writer to drop the connection mid-body.
private struct StreamDropped: Error {}
