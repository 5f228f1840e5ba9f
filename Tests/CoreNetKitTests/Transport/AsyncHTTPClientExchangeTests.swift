//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if AsyncHTTPClient
import AsyncHTTPClient
import CoreNetKitTestServer
import Foundation
import NIOCore
import Testing

#if Tracing
import InMemoryTracing
#endif

@testable import CoreNetKit

/// AsyncHTTPClientTransport's own exchange (the client's delegate API): a compressed part is
/// inflated a step at a time and the inflation stops whenever the pipeline pauses the exchange.
@Suite(.timeLimit(.minutes(2))) struct AsyncHTTPClientExchangeTests {
    /// With a 4 KiB buffer, every inflated piece pauses the exchange in the middle of a part
    /// (1 MiB from about 6.6 KB): each resume must go on with the rest of that part.
    @Test func aPartInflatedPastTheBufferGoesOnWhereItPausedAndArrivesWhole() async throws {
        try await withFaultServer { faults in
            let transport = AsyncHTTPClientTransport(bodyBufferLimit: 4096)
            let configuration = testConfiguration(transport: transport) { $0.maximumResponseBodySize = 8 << 20 }
            let base = faults.baseURL
            let request = TestResponseRequest(configuration: configuration) {
                ServerRequest(method: .get, baseUrl: base, relativeUrl: "/fault/gzip-zeros-1m")
            }

            let response = try await withTimeout(30, "the inflated body") { try await request.performAsync() }

            #expect(response.data == Data(count: 1 << 20))
        }
    }

    /// An exchange reads the client's task result, not only its delegate calls: a client of yours that was shut down
    /// fails a request without calling the delegate, and that request ends in a typed error, not in a wait. Requests
    /// on a client of yours and on the transport's own (a redirect, a 404) end as usual.
    @Test func aRequestOnAClientOfYoursThatWasShutDownEndsInATypedError() async throws {
        try await withTestServer { server in
            let client = HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: AsyncHTTPClientTransport.defaultConfiguration())
            let configuration = testConfiguration(transport: AsyncHTTPClientTransport(client: client))
            let own = testConfiguration(transport: AsyncHTTPClientTransport())
            let request = { @Sendable (configuration: NetworkConfiguration) in
                TestRequest<User>(configuration: configuration) { server.get("/users/1") }
            }

            let yours = try await withTimeout(30, "a request on your client") {
                try await request(configuration).performAsync()
            }
            let ours = try await withTimeout(30, "a request on the transport's own client") {
                try await request(own).performAsync()
            }
            let redirected = try await withTimeout(30, "a redirect on the transport's own client") {
                try await TestRequest<User>(configuration: own) { server.get("/redirect?to=/users/2") }.performAsync()
            }
            let missing = try await withTimeout(30, "a 404 on the transport's own client") {
                await TestRequest<User>(configuration: own) { server.get("/users/404") }.perform().result
            }
            try await client.shutdown()
            let afterShutdown = try await withTimeout(30, "a request on your client, shut down") {
                await request(configuration).perform().result
            }

            func error(_ result: Result<User, any Error>) -> BaseServerError? {
                guard case .failure(let error) = result else { return nil }
                return error as? BaseServerError
            }
            #expect(yours.id == 1 && ours == yours && redirected.id == 2)
            #expect(error(missing)?.statusCode == 404)
            #expect(error(afterShutdown) != nil)
        }
    }

    /// A body that passes the budget while the exchange is paused (the client waits on the
    /// pipeline's demand): the request ends in `responseTooLarge`, and the exchange lets go of
    /// the client's wait when it is cancelled.
    @Test func aBodyPastTheBudgetWhilePausedEndsInResponseTooLarge() async throws {
        try await withFaultServer { faults in
            let transport = AsyncHTTPClientTransport(bodyBufferLimit: 4096)
            let configuration = testConfiguration(transport: transport) { $0.maximumResponseBodySize = 256 << 10 }

            let first = try await outcome(of: faults.request(.smallGzipBomb, configuration: configuration))
            // The connection and the transport serve the next request as before.
            let second = try await outcome(of: faults.request(.gzipMebibyte, configuration: configuration))

            #expect(first.failureCode == .responseTooLarge)
            #expect(second.failureCode == .responseTooLarge)
        }
    }

    /// An exchange starts on the event loop the last one that ended well ended on, where the connection it used waits
    /// idle: one request after another, every exchange of a transport runs on one loop (the client's pool prefers a
    /// connection on the loop a request starts on; on another loop each event would hop between the two).
    @Test func oneRequestAfterAnotherRunsOnTheLoopTheLastOneEndedOn() async throws {
        try await withTestServer { server in
            let transport = AsyncHTTPClientTransport()
            let configuration = testConfiguration(transport: transport)
            var loops: [ObjectIdentifier] = []
            for id in 1...4 {
                let user = try await withTimeout(30, "request \(id)") {
                    try await TestRequest<User>(configuration: configuration) { server.get("/users/\(id)") }
                        .performAsync()
                }
                #expect(user.id == id)
                // The loop the next exchange would start on, given back for it.
                let loop = transport.loops.take()
                loops.append(ObjectIdentifier(loop))
                transport.loops.give(loop)
            }
            #expect(Set(loops).count == 1)
        }
    }

    /// The loops are taken latest first; with none given back, the client's group picks one.
    @Test func loopsAreTakenLatestFirst() {
        let group = HTTPClient.defaultEventLoopGroup
        let loops = LoopAffinity(group)
        let first = group.next()
        let second = group.next()
        loops.give(first)
        loops.give(second)
        loops.give(first)
        #expect(loops.take() === first)
        #expect(loops.take() === second)
        #expect(loops.take() === first)
        let picked = loops.take()
        #expect(group.makeIterator().contains { $0 === picked })
    }

    /// AsyncHTTPClient fails a request that waits for a pooled connection longer than its connect timeout (10 s by
    /// default), whatever the request's own timeout: many concurrent requests to one host failed under load.
    @Test func theRequestsTimeoutNotTheClientsConnectTimeoutBoundsTheWaitForAConnection() {
        let own = AsyncHTTPClientTransport.defaultConfiguration().timeout
        let plain = HTTPClient.Configuration().timeout

        #expect(plain.connect == nil)
        #expect(own.connect.map { $0 >= .hours(24) } == true)
        #expect(own.read == plain.read)
    }

    /// With no tracer bootstrapped, a configuration's tracer is the no-op one, for which AsyncHTTPClient still starts a
    /// span per request: the transport's configurations carry none instead. A tracer of yours is kept.
    @Test func aNoOpTracerIsDroppedAndATracerOfYoursKept() {
        #expect(AsyncHTTPClientTransport.defaultConfiguration().tracing.tracer == nil)
        let plain = HTTPClient.Configuration()
        #expect(plain.tracing.tracer != nil)
        #expect(AsyncHTTPClientTransport.withoutNoOpTracer(plain).tracing.tracer == nil)
        #if Tracing
        var yours = HTTPClient.Configuration()
        yours.tracing.tracer = InMemoryTracer()
        #expect(AsyncHTTPClientTransport.withoutNoOpTracer(yours).tracing.tracer is InMemoryTracer)
        #endif
    }
}
#endif
