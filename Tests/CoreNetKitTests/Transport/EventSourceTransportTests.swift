//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport written here, with public API only, as the Transports article shows: it reports
/// what URLSession's data delegate hears and keeps no timer, budget or buffer of its own. The
/// pipeline gives it the same deadline, budget, backpressure and cancellation as the built-in
/// transports.
final class DelegateTransport: NSObject, Transport, URLSessionDataDelegate, @unchecked Sendable {
    // safe: `events` is touched only under `lock`; URLSession is thread-safe
    private let lock = NSLock()
    private var events: [Int: TransportEvents] = [:]
    private lazy var session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    /// How many times the pipeline told an exchange to pause.
    let pauses = ByteCounter()

    func start(_ request: TransportRequest, events: TransportEvents) -> any TransportExchange {
        // The pipeline's deadline governs: URLSession's own timeout (the request's, counted as the
        // time between bytes in real time) would end a stalled exchange the test holds on a
        // manual clock whenever the machine is slow for that long.
        var urlRequest = request.urlRequest
        urlRequest.timeoutInterval = 24 * 3600
        let task = session.dataTask(with: urlRequest)
        lock.withLock { self.events[task.taskIdentifier] = events }
        task.resume()
        return Exchange(task: task, pauses: pauses)
    }

    private func events(of task: URLSessionTask) -> TransportEvents? {
        lock.withLock { events[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse {
            let fields = http.allHeaderFields.map { (name: "\($0.key)", value: "\($0.value)") }
            events(of: dataTask)?.head(statusCode: http.statusCode, headers: HTTPHeaders(fields), url: http.url)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        events(of: dataTask)?.chunk(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let events = lock.withLock { self.events.removeValue(forKey: task.taskIdentifier) }
        if let error { events?.fail(error) } else { events?.end() }
    }

    struct Exchange: TransportExchange, @unchecked Sendable {  // safe: URLSessionTask is thread-safe
        let task: URLSessionTask
        let pauses: ByteCounter

        func pause() { pauses.add(1) }  // FoundationNetworking cannot pause a task: only counted
        func resume() {}
        func cancel() { DispatchQueue.global().async { task.cancel() } }
    }
}

@Suite(.timeLimit(.minutes(3))) struct EventSourceTransportTests {
    @Test func aStalledBodyEndsInTimeoutAtTheDeadlineWithTheConnectionClosed() async throws {
        try await withFaultServer { faults in
            let clock = ManualClock()
            let configuration = testConfiguration(transport: DelegateTransport()) { $0.clock = clock }
            let request = faults.request(.stalledBody, configuration: configuration, timeout: 60)
            let firstBytes = Once<Bool>()
            let context = request.perform().onDownloadProgress { _ in firstBytes.fire(true) }
            _ = try await withTimeout(30, "the first bytes of the body") { await firstBytes.value }
            try await withTimeout(30, "the request's deadline on the clock") { await clock.waitForRequestDeadlines(1) }

            clock.advance(by: .seconds(60))

            let result = try await withTimeout(30, "the timeout") { await context.result }
            try await withTimeout(30, "the connection to close") { await faults.connectionsClosed() }
            #expect((result.failure as? BaseServerError)?.code == .timeout)
            #expect(configuration.taskPool.isEmpty)
        }
    }

    @Test func aBodyPastTheBudgetEndsInResponseTooLarge() async throws {
        try await withFaultServer { faults in
            let configuration = testConfiguration(transport: DelegateTransport()) {
                $0.maximumResponseBodySize = 64 * 1024
            }

            let result = try await outcome(of: faults.request(.hugeJSON, configuration: configuration, timeout: 30))

            #expect(result.failureCode == .responseTooLarge)
        }
    }

    @Test func aReaderThatFallsBehindTellsTheTransportToPause() async throws {
        // 4 MiB: more than the 1 MiB the pipeline keeps before it pauses, little enough that a
        // transport that cannot pause (FoundationNetworking) takes no memory worth measuring.
        try await withTestServer { server in
            let transport = DelegateTransport()
            let configuration = testConfiguration(transport: transport)
            let request = ServerRequest(
                method: .get, baseUrl: server.baseURL, relativeUrl: "/download/4194304", timeout: .infinity)
            var chunks = request.stream(configuration: configuration).makeAsyncIterator()

            _ = try await chunks.next()
            try await withTimeout(30, "the transport told to pause") {
                while transport.pauses.total == 0 { await Task.yield() }
            }

            #expect(transport.pauses.total > 0)
        }
    }

    @Test func cancellingTheAwaitingTaskCancelsTheRequestOnTheWire() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration(transport: DelegateTransport())
            let task = Task {
                try await TestRequest<JSON>(configuration: configuration) { server.get("/hold/event-cancel") }
                    .performAsync()
            }
            try await server.waitForArrivals(at: "event-cancel", count: 1)

            task.cancel()
            let result = await task.result

            #expect((result.failure as? BaseServerError)?.code == .cancelled)
            #expect(configuration.taskPool.isEmpty)
            server.release("event-cancel")
        }
    }
}
