//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if AsyncHTTPClient
import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

/// The task-API path of `AsyncHTTPClientTransport` (a request whose body needs no pumping): the
/// rest of its behaviour is pinned by the whole suite, which runs on this transport with the
/// `AsyncHTTPClient` trait.
@Suite(.timeLimit(.minutes(3))) struct AsyncHTTPClientTransportTests {
    @Test func aBodyManyTimesTheBufferArrivesWholeAfterTheBufferFilledUnread() async throws {
        // Nobody reads until the buffer holds its limit, so the body goes on through the
        // transport's pause and resume (whether the connection pauses in time depends on the
        // server's pace; the gzip bomb test bounds the memory it takes).
        try await withTestServer { server in
            let size = 8 * TaskExchange.bufferLimit
            let request = TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("download/\(size)"))
            #expect(AsyncHTTPClientTransport.sendsInCallersTask(request.body))
            // Kept to the end: its client shuts down when it is released.
            let transport = AsyncHTTPClientTransport()

            let response = try await transport.send(request)

            guard case .buffer(let owner) = response.body.storage else {
                Issue.record("the body is not the task path's buffer")
                return
            }
            try await withTimeout(30) {
                await waitUntil { owner.buffer.bufferedBytes >= TaskExchange.bufferLimit }
            }
            var received = Data()
            for try await chunk in response.body { received.append(chunk) }
            #expect(received == downloadPattern(count: size))
            _ = transport
        }
    }

    @Test func theDeadlinesCancelActionEndsTheRequestWithoutCancellingTheCallersTask() async throws {
        // The server answers after 3 s; the cancel action the transport hands the deadline (what
        // the pipeline's timer runs when time is up) ends the request on the wire first.
        try await withTestServer { server in
            var request = TransportRequest(method: .get, url: server.baseURL.appendingPathComponent("delay/3000"))
            let deadline = CancelActionRecorder()
            request.deadline = deadline
            let transport = AsyncHTTPClientTransport()

            async let sent = transport.send(request)
            try await withTimeout(30) {
                await waitUntil { deadline.action != nil }
            }
            deadline.action?()

            var thrown: (any Error)?
            do {
                _ = try await sent
            } catch {
                thrown = error
            }
            #expect(thrown is CancellationError, "\(String(describing: thrown))")
            #expect(!Task.isCancelled)
        }
    }
}

/// A deadline that records the cancel action a transport gives it, for the test to run.
private final class CancelActionRecorder: ExchangeActivity {
    private let recorded = Locked<(@Sendable () -> Void)?>(nil)

    var action: (@Sendable () -> Void)? { recorded.withLock { $0 } }

    func cancelsWith(_ cancel: @escaping @Sendable () -> Void) { recorded.withLock { $0 = cancel } }
    func requestIsBeingSent() {}
    func touch() {}
    func waitingForReader() {}
    func readerCaughtUp() {}
}
#endif
