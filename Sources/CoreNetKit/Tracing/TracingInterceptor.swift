//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Tracing
import Foundation
import Tracing

/// The stage that traces requests with apple/swift-distributed-tracing (the package trait `Tracing`): one client span
/// per request, its context propagated in the request's headers, every attempt as an event, errors recorded on the
/// span.
///
/// Add it with ``NetworkConfiguration/addTracing(tracer:)``:
///
/// ```swift
/// InstrumentationSystem.bootstrap(OTelTracer(...))      // any swift-distributed-tracing tracer
/// NetworkConfiguration.default.addTracing()
/// ```
///
/// **The span.** Named after the method, of kind `client`, a child of `ServiceContext.current`. Attributes, by the
/// OpenTelemetry HTTP client conventions: `http.request.method`, `url.full` (the URL as sent, with the preparators'
/// query items from the first attempt on; secrets redacted as in logs), `server.address`, `server.port`,
/// `http.response.status_code` and `http.request.resend_count` (retries and replays). An error that ends the request is
/// recorded (`recordError`), with status `error` and `error.type` the ``BaseServerError`` code; a cancelled request
/// gets `error.type` `cancelled` and no error status.
///
/// **Propagation.** On every attempt the tracer's injector writes the span's context into the headers: `traceparent`
/// and `tracestate` with a W3C tracer (swift-otel's `OTelTracer`), but `in-memory-trace-id`/`in-memory-span-id` with
/// the test `InMemoryTracer`. The rest of the chain runs with `ServiceContext.current` set to the span's context.
///
/// **Events.** Each send is an `http.attempt` event (`corenetkit.attempt`; `corenetkit.replay` when it repeats an
/// attempt after a `401`), followed by `http.response` (`http.response.status_code`) or `http.failure` (`error.type`).
///
/// The stages run on the request's Task; the span ends once, before the request's context delivers its event.
public struct TracingInterceptor: Interceptor {
    enum Role: Sendable { case span, attempt }

    private let tracer: (any Tracer)?
    let role: Role

    /// Creates the span stage alone; put it first in the chain (``NetworkConfiguration/addTracing(tracer:)`` also adds
    /// the attempt stage).
    ///
    /// A `nil` `tracer` uses `InstrumentationSystem.tracer` as it is when the request runs.
    public init(tracer: (any Tracer)? = nil) {
        self.init(tracer: tracer, role: .span)
    }

    init(tracer: (any Tracer)?, role: Role) {
        self.tracer = tracer
        self.role = role
    }

    public func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        switch role {
        case .span: try await traceRequest(request, next: next)
        case .attempt: try await traceAttempt(request, next: next)
        }
    }

    private func traceRequest(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        let tracer = tracer ?? InstrumentationSystem.tracer
        let span = tracer.startSpan(
            request.method.rawValue, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        span.attributes["http.request.method"] = request.method.rawValue
        Self.describe(request, on: span, encoder: next.configuration.encoder)
        let trace = RequestTrace(span: span, tracer: tracer)
        var request = request
        trace.inject(into: &request.headers)
        defer { span.end() }
        do {
            let response = try await ServiceContext.withValue(span.context) {
                try await RequestTrace.$current.withValue(trace) { try await next.proceed(request) }
            }
            span.attributes["http.response.status_code"] = response.statusCode
            trace.finish()
            return response
        } catch {
            let mapped = error as? BaseServerError
            if let status = mapped?.statusCode { span.attributes["http.response.status_code"] = status }
            trace.finish()
            if mapped?.code == .cancelled || error is CancellationError {
                span.attributes["error.type"] = "cancelled"
            } else {
                span.attributes["error.type"] = mapped?.code.description ?? String(describing: type(of: error))
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
            throw error
        }
    }

    private func traceAttempt(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        guard let trace = RequestTrace.current else { return try await next.proceed(request) }
        var request = request
        let replay = trace.beginSend(attempt: request.attempt)
        var attributes: SpanAttributes = ["corenetkit.attempt": request.attempt.toSpanAttribute()]
        if replay { attributes["corenetkit.replay"] = true }
        trace.span.addEvent(SpanEvent(name: "http.attempt", attributes: attributes))
        // The request as it is sent: its URL now has the preparators' query items.
        Self.describe(request, on: trace.span, encoder: next.configuration.encoder)
        trace.inject(into: &request.headers)
        do {
            let response = try await next.proceed(request)
            trace.endSend(status: response.statusCode)
            let status = response.statusCode.toSpanAttribute()
            trace.span.addEvent(SpanEvent(name: "http.response", attributes: ["http.response.status_code": status]))
            return response
        } catch {
            trace.endSend(status: (error as? BaseServerError)?.statusCode)
            let errorType = (error as? BaseServerError)?.code.description ?? "\(type(of: error))"
            trace.span.addEvent(SpanEvent(name: "http.failure", attributes: ["error.type": .string(errorType)]))
            throw error
        }
    }

    /// Sets `url.full` (redacted), `server.address` and `server.port` from ``ServerRequest/url(encoder:)``.
    private static func describe(_ request: ServerRequest, on span: any Span, encoder: JSONEncoder) {
        span.attributes["url.full"] = request.reportedURL(encoder: encoder)
        let url = (try? request.url(encoder: encoder)) ?? request.baseUrl
        if let host = url.host { span.attributes["server.address"] = host }
        if let port = url.port ?? ["http": 80, "https": 443][url.scheme?.lowercased() ?? ""] {
            span.attributes["server.port"] = port
        }
    }
}

extension NetworkConfiguration {
    /// Traces every request with ``TracingInterceptor``: its span stage first in ``interceptors`` (so the span covers
    /// retries, token refreshes and validation), its attempt stage last (right before the transport).
    ///
    /// Call it once, after other changes to ``interceptors``. A `nil` `tracer` uses `InstrumentationSystem.tracer` as
    /// it is when a request runs.
    public mutating func addTracing(tracer: (any Tracer)? = nil) {
        interceptors.insert(TracingInterceptor(tracer: tracer, role: .span), at: 0)
        interceptors.append(TracingInterceptor(tracer: tracer, role: .attempt))
    }
}

/// The span of one request, shared by its two stages through a task-local value.
final class RequestTrace: Sendable {
    @TaskLocal static var current: RequestTrace?

    private struct State {
        var sends = 0
        var lastAttempt = 0
        var lastStatus: Int?
    }

    let span: any Span
    private let tracer: any Tracer
    private let state = Locked(State())

    init(span: any Span, tracer: any Tracer) {
        self.span = span
        self.tracer = tracer
    }

    func inject(into headers: inout [String: String]) {
        tracer.inject(span.context, into: &headers, using: HeaderInjector())
    }

    /// Counts a send; returns whether it repeats the previous attempt after a `401`.
    func beginSend(attempt: Int) -> Bool {
        state.withLock { state in
            defer {
                state.sends += 1
                state.lastAttempt = attempt
            }
            return state.sends > 0 && state.lastAttempt == attempt && state.lastStatus == 401
        }
    }

    func endSend(status: Int?) {
        state.withLock { $0.lastStatus = status }
    }

    func finish() {
        let sends = state.withLock { $0.sends }
        if sends > 1 { span.attributes["http.request.resend_count"] = sends - 1 }
    }
}

struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}
#endif
