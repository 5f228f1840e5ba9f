//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

/// Streamed responses read by service code, against the loopback server, on the suite's transport
/// (URLSession, or AsyncHTTPClient with the trait).
@Suite(.timeLimit(.minutes(3))) struct StreamingTests {
    /// The event `/events/sse` sends as number `index` (see `EventScript`), as a reader must get it.
    static func expectedEvent(_ index: Int) -> ServerSentEvent {
        var data = "event \(index)\nline two of \(index)"
        if index % 5 == 0 { data += "\n indented \(index)" }
        return ServerSentEvent(
            event: index % 3 == 0 ? "tick" : "message", data: data, id: "\(index)", retry: .milliseconds(5))
    }

    private func events(_ server: TestServer, _ query: String, configuration: NetworkConfiguration? = nil)
        -> ResponseStream
    {
        ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: "/events/sse?\(query)")
            .stream(configuration: configuration ?? testConfiguration())
    }

    @Test func aThousandServerSentEventsInIrregularChunksArriveExactlyAsSent() async throws {
        try await withTestServer { server in
            var received: [ServerSentEvent] = []

            for try await event in events(server, "count=1000").events { received.append(event) }

            #expect(received.count == 1000)
            #expect(received == (1...1000).map(Self.expectedEvent))
        }
    }

    /// How an app reads a stream from its UI code: the loop runs on the main actor.
    @MainActor @Test func aLoopOnTheMainActorReadsLinesAndEvents() async throws {
        let server = try await TestServer.start()
        let base = server.baseURL
        var lines = 0
        var events = 0

        do {
            for try await _ in ServerRequest(method: .get, baseUrl: base, relativeUrl: "/events/jsonl?count=3")
                .stream(configuration: testConfiguration()).lines
            {
                lines += 1
            }
            for try await _ in ServerRequest(method: .get, baseUrl: base, relativeUrl: "/events/sse?count=4")
                .stream(configuration: testConfiguration()).events
            {
                events += 1
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()

        #expect(lines == 3)
        #expect(events == 4)
    }

    @Test func jsonLinesDecodeIntoModelsOneAtATime() async throws {
        struct Item: Decodable, Sendable, Equatable {
            let id: Int
            let name: String
        }
        try await withTestServer { server in
            let request = ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: "/events/jsonl?count=250")
            var items: [Item] = []

            for try await item in request.stream(configuration: testConfiguration()).jsonLines(of: Item.self) {
                items.append(item)
            }

            #expect(items == (1...250).map { Item(id: $0, name: "item \($0)") })
        }
    }

    @Test func rawChunksAddUpToTheWholeBody() async throws {
        try await withTestServer { server in
            let request = ServerRequest(
                method: .get, baseUrl: server.baseURL, relativeUrl: "/events/bytes?total=3000000")
            var total = 0
            var others = 0

            for try await chunk in request.stream(configuration: testConfiguration()) {
                total += chunk.count
                others += chunk.filter { $0 != UInt8(ascii: "x") }.count
            }

            #expect(total == 3_000_000)
            #expect(others == 0)
        }
    }

    @Test func aStreamThatStartsWithA401RefreshesOnceAndThenStreams() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            server.auth.expireAccessToken()
            let request = ServerRequest(
                method: .get, baseUrl: server.baseURL, relativeUrl: "/events/sse?count=20&protected=1")
            var received: [ServerSentEvent] = []

            for try await event in request.stream(configuration: auth.configuration).events { received.append(event) }

            #expect(received == (1...20).map(Self.expectedEvent))
            #expect(server.auth.refreshCalls == 1)
            #expect(server.auth.tokensSeen() == ["token-1", "token-2"])
        }
    }

    @Test func a503BeforeTheFirstByteIsRetried() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration {
                $0.retryPolicy = RetryPolicy(baseDelay: .milliseconds(1), jitter: { 0 })
            }
            var received: [ServerSentEvent] = []

            for try await event in events(server, "count=5&failFirst=a", configuration: configuration).events {
                received.append(event)
            }

            #expect(received == (1...5).map(Self.expectedEvent))
            #expect(server.hits(path: "/events/sse") == 2)
        }
    }

    @Test func aConnectionDroppedAfterEvent500ReconnectsWithLastEventIDAndDeliversEachEventOnce() async throws {
        try await withTestServer { server in
            var received: [ServerSentEvent] = []

            let stream = events(server, "count=1000&dropAfter=500")
            for try await event in stream.events(reconnecting: .automatic) { received.append(event) }

            #expect(received == (1...1000).map(Self.expectedEvent))
            #expect(server.arrivals(at: "last-event-id:500") == 1)
            expectConnections(server, 2)  // each event still arrives once, even on AsyncHTTPClient
        }
    }

    @Test func aConnectionCutInsideAnEventAsksForThatEventAgainAndDeliversItOnce() async throws {
        try await withTestServer { server in
            var received: [ServerSentEvent] = []

            // The first connection carries event 6's `id` and data but not the empty line that
            // ends it: the reconnection must ask after event 5, not 6.
            let stream = events(server, "count=20&dropAfter=5&cutInside=1")
            for try await event in stream.events(reconnecting: .automatic) { received.append(event) }

            #expect(received == (1...20).map(Self.expectedEvent))
            #expect(server.arrivals(at: "last-event-id:5") == 1)
            #expect(server.arrivals(at: "last-event-id:6") == 0)
        }
    }

    @Test func aReconnectionAnswered204EndsTheLoopNormally() async throws {
        try await withTestServer { server in
            var received = 0

            let stream = events(server, "count=20&dropAfter=5&reconnectStatus=204")
            for try await _ in stream.events(reconnecting: .automatic) { received += 1 }

            expectEventsBeforeTheDrop(received, 5)
            expectConnections(server, 2)
        }
    }

    @Test func aReconnectionAnsweredWithAStatusThePolicyDoesNotRetryThrowsIt() async throws {
        try await withTestServer { server in
            var received = 0

            let error = await #expect(throws: BaseServerError.self) {
                let stream = events(server, "count=20&dropAfter=5&reconnectStatus=404")
                for try await _ in stream.events(reconnecting: .automatic) { received += 1 }
            }

            #expect(error?.statusCode == 404)
            expectEventsBeforeTheDrop(received, 5)
            expectConnections(server, 2)
        }
    }

    @Test func reconnectionsThatDeliverNoEventStopAfterThePolicysAttempts() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration {
                $0.retryPolicy = RetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(1), jitter: { 0 })
            }
            var received = 0

            let error = await #expect(throws: BaseServerError.self) {
                let stream = events(server, "count=20&dropAfter=5&reconnectStatus=503", configuration: configuration)
                for try await _ in stream.events(reconnecting: EventStreamReconnection(maximumAttempts: 3)) {
                    received += 1
                }
            }

            #expect(error?.statusCode == 503)
            expectEventsBeforeTheDrop(received, 5)
            // The first connection, then 3 reconnections, each retried by the chain's own policy
            // (4 attempts) before the loop counts it as one failed reconnection.
            expectConnections(server, 1 + 3 * 4)
        }
    }

    @Test func withoutReconnectionADroppedConnectionEndsTheLoopWithConnectionLost() async throws {
        try await withTestServer { server in
            var received: [ServerSentEvent] = []

            let error = await #expect(throws: BaseServerError.self) {
                for try await event in events(server, "count=1000&dropAfter=300").events { received.append(event) }
            }

            #expect(error?.code == .connectionLost)
            #expect(received == (1...received.count).map(Self.expectedEvent))
            #if AsyncHTTPClient
            #expect(received.count <= 300, "\(lostTailBeforeADrop)")
            #else
            #expect(received.count == 300)
            #endif
        }
    }

    @Test func aServerThatGoesSilentEndsTheStreamWithTimeoutAfterTheIdleTimeout() async throws {
        try await withTestServer { server in
            let clock = ManualClock()
            let configuration = testConfiguration { $0.clock = clock }
            let request = ServerRequest(
                method: .get, baseUrl: server.baseURL, relativeUrl: "/events/sse?count=10&silentAfter=3&gate=silent")
            let threeRead = Once<Void>()
            let reader = Task {
                var count = 0
                for try await _ in request.stream(configuration: configuration, idleTimeout: 5).events {
                    count += 1
                    if count == 3 { threeRead.fire(()) }
                }
                return count
            }
            try await withTimeout(30, "three events") { await threeRead.value }
            try await server.waitForArrivals(at: "silent", count: 1)
            try await withTimeout(30, "the request's deadline on the clock") { await clock.waitForRequestDeadlines(1) }

            clock.advance(by: .seconds(5))

            let result = try await withTimeout(30, "the idle timeout") { await reader.result }
            #expect((result.failure as? BaseServerError)?.code == .timeout)
            #expect(configuration.taskPool.isEmpty)
        }
    }

    @Test func cancellingTheReadingTaskMidStreamClosesTheConnectionAndEmptiesThePool() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let request = ServerRequest(
                method: .get, baseUrl: server.baseURL,
                relativeUrl: "/events/sse?count=1000000&silentAfter=10&gate=cancel&key=cancel")
            let tenRead = Once<Void>()
            let reader = Task {
                var count = 0
                for try await _ in request.stream(configuration: configuration).events {
                    count += 1
                    if count == 10 { tenRead.fire(()) }
                }
            }
            try await withTimeout(30, "ten events") { await tenRead.value }

            reader.cancel()

            let error = await #expect(throws: BaseServerError.self) { try await reader.value }
            #expect(error?.code == .cancelled)
            // The server writes again, and finds the connection closed.
            server.release("cancel")
            try await server.waitForArrivals(at: "closed:cancel", count: 1)
            #expect(configuration.taskPool.isEmpty)
        }
    }

    @Test func breakingOutOfTheLoopClosesTheConnectionAndEmptiesThePool() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let request = ServerRequest(
                method: .get, baseUrl: server.baseURL,
                relativeUrl: "/events/sse?count=1000000&silentAfter=10&gate=break&key=break")
            var count = 0

            for try await _ in request.stream(configuration: configuration).events {
                count += 1
                if count == 10 { break }
            }

            server.release("break")
            try await server.waitForArrivals(at: "closed:break", count: 1)
            try await waitUntilEmpty(configuration.taskPool)
        }
    }

    @Test func taskPoolCancelClosesTheConnectionAndEndsTheLoopWithCancelled() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()
            let request = ServerRequest(
                method: .get, baseUrl: server.baseURL,
                relativeUrl: "/events/sse?count=1000000&silentAfter=10&gate=pool&key=pool")
            let firstRead = Once<Void>()
            let reader = Task {
                for try await _ in request.stream(configuration: configuration).events { firstRead.fire(()) }
            }
            try await withTimeout(30, "the first event") { await firstRead.value }
            let ids = configuration.taskPool.ids

            for id in ids { configuration.taskPool.cancel(id: id) }

            let result = try await withTimeout(30, "the loop to end") { await reader.result }
            #expect(ids.count == 1)
            #expect((result.failure as? BaseServerError)?.code == .cancelled)
            server.release("pool")
            try await server.waitForArrivals(at: "closed:pool", count: 1)
            #expect(configuration.taskPool.isEmpty)
        }
    }

    @Test func aNon2xxAnswerThrowsTheMappedErrorWithItsBody() async throws {
        try await withTestServer { server in
            let request = ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: "/events/nowhere")

            let error = await #expect(throws: BaseServerError.self) {
                for try await _ in request.stream(configuration: testConfiguration()).lines {}
            }

            #expect(error?.statusCode == 404)
        }
    }

    @Test func monitorsSeeTheStartTheFirstByteAndTheFinishWithTheByteCount() async throws {
        try await withTestServer { server in
            let monitor = StreamRecordingMonitor()
            let configuration = testConfiguration { $0.monitors = [monitor] }
            let request = ServerRequest(
                method: .get, baseUrl: server.baseURL, relativeUrl: "/events/bytes?total=100000")

            for try await _ in request.stream(configuration: configuration) {}

            #expect(
                try await monitor.events() == ["start", "stream 200", "receive 200 100000 bytes", "finish success"])
        }
    }
}

/// Waits (bounded) until `pool` is empty: a loop that breaks out drops its request without
/// waiting for it to wind down.
/// Why a test expects fewer events before a dropped connection on AsyncHTTPClient: when the
/// peer closes, SwiftNIO reads what is left on the socket at once, and AsyncHTTPClient (1.37)
/// fails the request without handing on the body parts its reader had not asked for yet.
let lostTailBeforeADrop =
    "AsyncHTTPClient drops body bytes it read but had not handed on when the connection fails"

/// Expects `expected` connections to `/events/sse`: exactly on URLSession; at least on
/// AsyncHTTPClient, where a lost tail (`lostTailBeforeADrop`) makes the reconnection ask from an
/// earlier event and meet the drop once more.
func expectConnections(
    _ server: TestServer, _ expected: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
    #if AsyncHTTPClient
    #expect(server.hits(path: "/events/sse") >= expected, "\(lostTailBeforeADrop)", sourceLocation: sourceLocation)
    #else
    #expect(server.hits(path: "/events/sse") == expected, sourceLocation: sourceLocation)
    #endif
}

/// Expects `received` events before the first connection dropped: exactly `expected` on
/// URLSession; at most that many on AsyncHTTPClient, where a lost tail (`lostTailBeforeADrop`)
/// can take the last of them and a reconnection answered with a status ends the loop before
/// they are asked for again.
func expectEventsBeforeTheDrop(
    _ received: Int, _ expected: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
    #if AsyncHTTPClient
    #expect(received <= expected, "\(lostTailBeforeADrop)", sourceLocation: sourceLocation)
    #else
    #expect(received == expected, sourceLocation: sourceLocation)
    #endif
}

func waitUntilEmpty(_ pool: TaskPool) async throws {
    try await withTimeout(30, "the pool to empty") {
        while !pool.isEmpty, !Task.isCancelled { await Task.yield() }
    }
}

/// Records the events a streamed request gives its monitors.
final class StreamRecordingMonitor: NetworkEventMonitor {
    let queue = DispatchQueue(label: "tests.stream-monitor")
    private let lines = Locked<[String]>([])
    private let finished = Once<Void>()

    func events() async throws -> [String] {
        try await withTimeout(30, "the last monitor event") { await self.finished.value }
        await drain(queue)
        return lines.withLock { $0 }
    }

    func requestDidStart(_ request: MonitoredRequest) { lines.withLock { $0.append("start") } }

    func request(_ request: MonitoredRequest, didStartStreaming response: MonitoredResponse) {
        lines.withLock { $0.append("stream \(response.statusCode)") }
    }

    func request(_ request: MonitoredRequest, didReceive response: MonitoredResponse) {
        lines.withLock { $0.append("receive \(response.statusCode) \(response.bytes) bytes") }
    }

    func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics) {
        let outcome = if case .success = metrics.outcome { "success" } else { "failure" }
        lines.withLock { $0.append("finish \(outcome)") }
        finished.fire(())
    }

    func requestWasCancelled(_ request: MonitoredRequest) {
        lines.withLock { $0.append("cancelled") }
        finished.fire(())
    }
}
