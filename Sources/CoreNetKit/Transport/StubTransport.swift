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

/// A ``Transport`` that answers from a closure, for unit tests of service code without a network.
///
/// ```swift
/// let transport = StubTransport.json(#"{"items": [], "total": 0}"#)
/// var configuration = NetworkConfiguration.default
/// configuration.transport = transport
/// ```
///
/// Latency sleeps on the clock without blocking a thread; a cancelled Task ends it at once with `CancellationError`.
public struct StubTransport: Transport {
    private let latency: Duration
    private let clock: any NetworkClock
    private let respond: @Sendable (TransportRequest) async throws -> TransportResponse
    /// Without latency: reported as soon as the exchange starts, with no Task.
    private let canned: Result<(status: Int, headers: HTTPHeaders, body: Data), any Error>?

    /// Creates a stub that answers every request with `respond`, after `latency`.
    public init(
        latency: Duration = .zero,
        clock: any NetworkClock = SystemClock(),
        _ respond: @escaping @Sendable (TransportRequest) async throws -> TransportResponse
    ) {
        self.latency = latency
        self.clock = clock
        self.respond = respond
        self.canned = nil
    }

    private init(
        latency: Duration, canned: Result<(status: Int, headers: HTTPHeaders, body: Data), any Error>
    ) {
        self.latency = latency
        self.clock = SystemClock()
        self.canned = latency > .zero ? nil : canned
        self.respond = { request in
            let (status, headers, body) = try canned.get()
            return TransportResponse(statusCode: status, headers: headers, body: body, url: request.url)
        }
    }

    /// A stub that answers every request with `status`, `body` and `headers`.
    public static func response(
        status: Int = 200, body: Data = Data(), headers: HTTPHeaders = [:], latency: Duration = .zero
    ) -> StubTransport {
        StubTransport(latency: latency, canned: .success((status, headers, body)))
    }

    /// A stub that answers every request with the JSON text `json` and `status`.
    public static func json(_ json: String, status: Int = 200, latency: Duration = .zero) -> StubTransport {
        response(
            status: status, body: Data(json.utf8),
            headers: ["Content-Type": "application/json; charset=utf-8"], latency: latency)
    }

    /// A stub that fails every request with `error` (for example `URLError(.notConnectedToInternet)`).
    public static func failing(with error: any Error, latency: Duration = .zero) -> StubTransport {
        StubTransport(latency: latency, canned: .failure(error))
    }

    public func start(_ request: TransportRequest, events: TransportEvents) -> any TransportExchange {
        guard let canned else {
            return SendingTask(request, events: events) { try await send($0) }
        }
        request.body.reportSent(request.body.length ?? 0)
        switch canned {
        case .success(let (status, headers, body)):
            events.head(statusCode: status, headers: headers, url: request.url)
            events.chunk(body)
            events.end()
        case .failure(let error):
            events.fail(error)
        }
        return Answered()
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        if latency > .zero { try await clock.pause(for: latency) }
        try Task.checkCancellation()
        request.body.reportSent(request.body.length ?? 0)
        return try await respond(request)
    }

    /// Over before the pipeline can ask anything of it.
    private struct Answered: TransportExchange {
        func pause() {}
        func resume() {}
        func cancel() {}
    }
}
