//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Tracing
import CoreNetKitTestServer
import Foundation
import InMemoryTracing
import Testing
import Tracing

@testable import CoreNetKit

/// The spans ``TracingInterceptor`` records, read back from swift-distributed-tracing's in-memory
/// tracer, and the trace context the loopback server receives.
@Suite(.timeLimit(.minutes(3))) struct TracingInterceptorTests {
    @Test func requestIsOneClientSpanWhoseTraceparentReachesTheServer() async throws {
        try await withTestServer { server in
            let tracer = W3CTestTracer()
            let configuration = testConfiguration { $0.addTracing(tracer: tracer) }

            let echo = try await TestRequest<Echo>(configuration: configuration) {
                server.get("/echo?token=s3cr3t")
            }.performAsync()

            let span = try #require(tracer.finishedSpans.only)
            #expect(span.operationName == "GET")
            #expect(span.kind == .client)
            #expect(span.parentSpanID == nil)
            #expect(echo.headers["traceparent"] == "00-\(span.traceID)-\(span.spanID)-01")
            #expect(span.attributes.get("http.request.method") == .string("GET"))
            #expect(
                span.attributes.get("url.full") == .string(server.baseURL.absoluteString + "/echo?token=<redacted>"))
            #expect(span.attributes.get("server.address") == .string("127.0.0.1"))
            #expect(span.attributes.get("server.port") == .int64(Int64(server.baseURL.port ?? 0)))
            #expect(span.attributes.get("http.response.status_code") == .int64(200))
            #expect(span.events.map { $0.name } == ["http.attempt", "http.response"])
            #expect(span.status == nil)
        }
    }

    @Test func spanStageAloneStillPropagatesTheTraceContext() async throws {
        try await withTestServer { server in
            let tracer = W3CTestTracer()
            let configuration = testConfiguration { $0.interceptors.insert(TracingInterceptor(tracer: tracer), at: 0) }

            let echo = try await TestRequest<Echo>(configuration: configuration) { server.get("/echo") }.performAsync()

            let span = try #require(tracer.finishedSpans.only)
            #expect(echo.headers["traceparent"] == "00-\(span.traceID)-\(span.spanID)-01")
            #expect(span.events.isEmpty)
        }
    }

    @Test func callersSpanIsTheParentOfTheRequestSpan() async throws {
        try await withTestServer { server in
            let tracer = W3CTestTracer()
            let configuration = testConfiguration { $0.addTracing(tracer: tracer) }

            let parentID = try await tracer.withSpan("checkout") { parent in
                _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()
                return parent.spanContext.spanID
            }

            let request = try #require(tracer.finishedSpans.first { $0.operationName == "GET" })
            let parent = try #require(tracer.finishedSpans.first { $0.operationName == "checkout" })
            #expect(request.parentSpanID == parentID)
            #expect(request.traceID == parent.traceID)
        }
    }

    @Test func failedRequestRecordsTheErrorOnItsSpan() async throws {
        try await withTestServer { server in
            let tracer = W3CTestTracer()
            let configuration = testConfiguration { $0.addTracing(tracer: tracer) }

            _ = try? await TestRequest<User>(configuration: configuration) { server.get("/status/500") }.performAsync()

            let span = try #require(tracer.finishedSpans.only)
            #expect(span.status?.code == .error)
            #expect(span.errors.count == 1)
            #expect((span.errors.first?.error as? BaseServerError)?.code == .badStatus)
            #expect(span.attributes.get("error.type") == .string("badStatus"))
            #expect(span.attributes.get("http.response.status_code") == .int64(500))
        }
    }

    @Test func retriedRequestShowsEachAttemptAsAnEventOnOneSpan() async throws {
        try await withTestServer { server in
            let tracer = W3CTestTracer()
            let configuration = testConfiguration {
                $0.retryPolicy = RetryPolicy(jitter: { 0 })
                $0.clock = ManualClock()
                $0.addTracing(tracer: tracer)
            }

            _ = try await TestRequest<FlakyReply>(configuration: configuration) {
                server.get("/flaky/traced?failures=1")
            }.performAsync()

            let span = try #require(tracer.finishedSpans.only)
            #expect(span.events.map { $0.name } == ["http.attempt", "http.response", "http.attempt", "http.response"])
            #expect(span.events.map { $0.attributes.get("corenetkit.attempt") } == [.int64(1), nil, .int64(2), nil])
            #expect(span.events[1].attributes.get("http.response.status_code") == .int64(503))
            #expect(span.attributes.get("http.request.resend_count") == .int64(1))
            #expect(span.attributes.get("http.response.status_code") == .int64(200))
        }
    }

    @Test func replayAfterATokenRefreshIsMarkedOnItsAttemptEvent() async throws {
        try await withTestServer { server in
            let tracer = W3CTestTracer()
            let auth = AuthFixture(server: server)
            var configuration = auth.configuration
            configuration.addTracing(tracer: tracer)
            server.auth.expireAccessToken()

            _ = try await TestRequest<ProtectedReply>(configuration: configuration) {
                server.get("/protected/traced")
            }.performAsync()

            let span = try #require(
                tracer.finishedSpans.first {
                    $0.attributes.get("url.full") == .string(server.baseURL.absoluteString + "/protected/traced")
                })
            #expect(span.events.map { $0.name } == ["http.attempt", "http.response", "http.attempt", "http.response"])
            #expect(span.events[1].attributes.get("http.response.status_code") == .int64(401))
            #expect(span.events[2].attributes.get("corenetkit.replay") == .bool(true))
        }
    }
}

extension Array {
    /// The single element, or `nil` when there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}

/// swift-distributed-tracing's in-memory tracer, with W3C-shaped ids, injecting a W3C
/// `traceparent` header as an OpenTelemetry tracer (swift-otel) does.
struct W3CTestTracer: Tracer {
    private let inner: InMemoryTracer

    init() {
        let counter = Locked(0)
        let next: @Sendable (Int) -> String = { width in
            let value = counter.withLock { value -> Int in
                value += 1
                return value
            }
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: width - digits.count) + digits
        }
        inner = InMemoryTracer(idGenerator: .init(nextTraceID: { next(32) }, nextSpanID: { next(16) }))
    }

    var finishedSpans: [FinishedInMemorySpan] { inner.finishedSpans }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        inner.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line
        )
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}
}
#endif
