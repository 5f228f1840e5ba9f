//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird
import NIOCore

/// The request context of the test server: Hummingbird's basic one plus the connection, so a
/// route can drop it unanswered.
struct TestRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}

/// A server that honours `Idempotency-Key`: `POST /outbox/apply/:queue/:seq` (see ``OutboxLedger``).
extension TestResponder {
    /// Applies change `seq` of `queue` once per `Idempotency-Key` and answers `201`
    /// `{"queue":…,"seq":…}`; a repeated key gets the first answer and applies nothing. Query:
    /// `status=N` answers `N` (a `{"code":"REJECTED",…}` body) without applying; `failures=N`
    /// answers the first `N` requests of a key `503` (with `Retry-After: <retryAfter>` when
    /// given) without applying; `drop=1` applies the change and then closes the connection
    /// without a response byte, the first time for each key; `gate=G` holds the request at gate
    /// `G` (see ``TestServer/release(_:)``) before anything else.
    func outboxApply(queue: String, seq: String, request: Request, context: Context) async throws -> Response {
        guard let seq = Int(seq) else { throw RouteError.invalidParameter("seq", "an integer") }
        let query = QueryItems(request.uri.query)
        let body = try await Self.collectBody(request)
        let key = request.headers[Self.idempotencyKeyHeader]
        if let gate = query["gate"] { await self.core.passGate(gate) }
        if let status = query["status"].flatMap(Int.init) {
            return Self.error(.init(code: status), code: "REJECTED", message: "change \(seq) of \(queue) is refused")
        }
        if let failures = query["failures"].flatMap(Int.init), let key,
            self.core.nextCounterValue("outbox-failures/" + key) <= failures
        {
            var headers = HTTPFields()
            if let retryAfter = query["retryAfter"] { headers[.retryAfter] = retryAfter }
            return Self.error(.serviceUnavailable, code: "UNAVAILABLE", message: "try later", headers: headers)
        }
        let (applied, answer) = self.core.outbox.apply(
            key: key, queue: queue, seq: seq, authorization: request.headers[.authorization])
        if let answer { return Self.text(answer, status: .created, contentType: Self.jsonContentType) }
        guard key != nil else {
            return Self.error(.badRequest, code: "NO_KEY", message: "an Idempotency-Key header is required")
        }
        let text = #"{"queue":"\#(queue)","seq":\#(seq),"bytes":\#(body.count)}"#
        if let key { self.core.outbox.store(answer: text, for: key) }
        if applied, query["drop"] == "1" {
            try? await context.channel.close()
            throw CancellationError()
        }
        return Self.text(text, status: .created, contentType: Self.jsonContentType)
    }

    private static let idempotencyKeyHeader = HTTPFields.Element.Name("Idempotency-Key")!
}
