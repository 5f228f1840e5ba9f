//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport {
    /// Begins `request`'s exchange on AsyncHTTPClient's delegate API: the event loop reports head, body parts and
    /// end straight to `events` (no Task in between) and reads the next part only when the pipeline asks
    /// (``TransportExchange/pause()`` holds it back). Redirects and inflation work as in ``send(_:)``.
    ///
    /// A body pulled in chunks (a stream, a file, or large bytes whose upload is watched) goes through ``send(_:)``
    /// in a Task instead.
    public func start(_ request: TransportRequest, events: TransportEvents) -> any TransportExchange {
        guard request.body.isEmpty || Self.wholeBytes(request.body) != nil else {
            return SendingTask(request, events: events) { [self] in try await send($0, events: events) }
        }
        let inflates = inflatesBodies && request.value(forHTTPHeaderField: "Accept-Encoding") == nil
        var current = request
        if inflates { current.setValue("gzip, deflate", forHTTPHeaderField: "Accept-Encoding") }
        let exchange = AsyncHTTPClientExchange(transport: self, events: events, request: current, inflates: inflates)
        exchange.execute(current)
        return exchange
    }

    fileprivate func clientRequest(_ request: TransportRequest) throws -> HTTPClient.Request {
        var body: HTTPClient.Body?
        if let data = Self.wholeBytes(request.body) {
            request.body.reportSent(Int64(data.count))
            body = .byteBuffer(ByteBuffer(bytes: data))
        }
        return try HTTPClient.Request(
            url: request.url, method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue),
            headers: Self.clientHeaders(request.headers), body: body, tlsConfiguration: trust(for: request.url))
    }
}

/// The event loops of the exchanges that ended well, the latest last: the next exchange starts on the latest, where
/// the connection it ended on waits idle. The client's pool prefers a connection on the loop a request starts on but
/// takes an idle one anywhere, and then every event of the exchange hops between the two loops (out of process, one
/// request at a time read 0.77 of raw AsyncHTTPClient's throughput starting on any loop, 0.87 on the latest).
final class LoopAffinity: Sendable {
    private let group: any EventLoopGroup
    private let ended = Locked<[any EventLoop]>([])

    init(_ group: any EventLoopGroup) { self.group = group }

    func take() -> any EventLoop {
        ended.withLock { $0.popLast() } ?? group.any()
    }

    /// At most 256 are kept: as many exchanges as a burst ends that the next burst can reuse.
    func give(_ loop: any EventLoop) {
        ended.withLock { loops in
            if loops.count < 256 { loops.append(loop) }
        }
    }
}

/// One exchange on AsyncHTTPClient's delegate API, called on the request's event loop one call at a time. The
/// client reads the next body part only when the future returned for the last completes: while paused, `demand`.
final class AsyncHTTPClientExchange: TransportExchange, HTTPClientResponseDelegate {
    typealias Response = Void

    private struct State {
        var task: HTTPClient.Task<Void>?
        /// The first request, or where the last redirect pointed.
        var request: TransportRequest
        var redirects = 0
        /// Where the response in hand redirects to; sent once the response ended.
        var next: TransportRequest?
        /// For a gzip or deflate body, with the part in hand not yet inflated.
        var inflater: InflatedChunks.Inflater?
        var compressed = ByteBuffer()
        var paused = false
        var demand: EventLoopPromise<Void>?
        var cancelled = false
    }

    private let transport: AsyncHTTPClientTransport
    private let events: TransportEvents
    private let inflates: Bool
    private let state: Locked<State>

    init(transport: AsyncHTTPClientTransport, events: TransportEvents, request: TransportRequest, inflates: Bool) {
        self.transport = transport
        self.events = events
        self.inflates = inflates
        self.state = Locked(State(request: request))
    }

    func execute(_ request: TransportRequest) {
        let clientRequest: HTTPClient.Request
        do {
            clientRequest = try transport.clientRequest(request)
        } catch {
            return events.fail(AsyncHTTPClientTransport.map(error))
        }
        // Started on one of the client's event loops, the one the last exchange ended on: the client then calls the
        // delegate on that loop and prefers a connection on it, and its bookkeeping (the pool, the task's future) is
        // done there, not hopped to from here.
        let loop = transport.loops.take()
        guard loop.inEventLoop else { return loop.execute { [self] in start(clientRequest) } }
        start(clientRequest)
    }

    private func start(_ clientRequest: HTTPClient.Request) {
        let task = transport.client.execute(request: clientRequest, delegate: self, eventLoop: .indifferent)
        // The task's result, not the delegate: a shut-down client fails the task without calling the delegate.
        task.futureResult.whenComplete { [self] result in
            if case .success = result { transport.loops.give(task.eventLoop) }
            completed(result)
        }
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    // MARK: The pipeline's commands

    func pause() {
        state.withLock { $0.paused = true }
    }

    /// Lets the client read the next part on the event loop (not here: the pipeline calls under its lock, which
    /// the next part's event takes again).
    func resume() {
        let demand: EventLoopPromise<Void>? = state.withLock { state in
            state.paused = false
            defer { state.demand = nil }
            return state.demand
        }
        guard let demand else { return }
        let loop = demand.futureResult.eventLoop
        loop.execute { [self] in
            // Inflation stopped mid-part: the rest of the part first.
            inflate(on: loop).cascade(to: demand)
        }
    }

    func cancel() {
        let (task, demand) = state.withLock { state in
            state.cancelled = true
            defer { state.demand = nil }
            return (state.task, state.demand)
        }
        demand?.fail(CancellationError())
        task?.cancel()
    }

    // MARK: The client's calls, on the event loop

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let status = Int(head.status.code)
        let location = head.headers.first(name: "Location")
        let (answered, redirect, redirects) = state.withLock { state in
            (
                state.request.url, RedirectPolicy.request(after: state.request, status: status, location: location),
                state.redirects
            )
        }
        if var next = redirect {
            guard redirects < AsyncHTTPClientTransport.maximumRedirects else {
                return task.eventLoop.makeFailedFuture(URLError(.httpTooManyRedirects))
            }
            events.redirecting(&next, from: answered, headers: AsyncHTTPClientTransport.headers(head.headers))
            state.withLock { state in
                state.redirects += 1
                state.next = next
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }
        if inflates, AsyncHTTPClientTransport.isCompressed(head.headers) {
            do {
                let inflater = try InflatedChunks.Inflater(head: head)
                state.withLock { $0.inflater = inflater }
            } catch {
                return task.eventLoop.makeFailedFuture(InflatedChunks.decodingError(error))
            }
        }
        events.head(
            statusCode: status, headers: AsyncHTTPClientTransport.headers(head.headers), url: answered,
            httpVersion: AsyncHTTPClientTransport.version(head.version))
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let inflating: Bool? = state.withLock { state in
            if state.next != nil { return nil }
            guard state.inflater != nil else { return false }
            state.compressed = buffer
            return true
        }
        switch inflating {
        case nil: return task.eventLoop.makeSucceededVoidFuture()
        case true?: return inflate(on: task.eventLoop)
        case false?:
            events.chunk(buffer.withUnsafeReadableBytes { Data($0) })
            return demand(on: task.eventLoop)
        }
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}

    // MARK: Carrying out

    /// Completes when the client may read the next part.
    private func demand(on loop: any EventLoop) -> EventLoopFuture<Void> {
        state.withLock { state in
            guard state.paused, !state.cancelled else { return loop.makeSucceededVoidFuture() }
            let demand = loop.makePromise(of: Void.self)
            state.demand = demand
            return demand.futureResult
        }
    }

    /// Hands on inflated pieces of the part in hand until it is used up or the exchange pauses.
    private func inflate(on loop: any EventLoop) -> EventLoopFuture<Void> {
        do {
            while let chunk = try nextInflated() {
                events.chunk(chunk)
                if state.withLock({ $0.paused }) { return demand(on: loop) }
            }
            return loop.makeSucceededVoidFuture()
        } catch {
            return loop.makeFailedFuture(InflatedChunks.decodingError(error))
        }
    }

    /// The next inflated piece of the part in hand (or of the end, with `finish`); `nil` when it needs more.
    private func nextInflated(finish: Bool = false) throws -> Data? {
        try state.withLock { state in
            guard let inflater = state.inflater else { return nil }
            if finish { try inflater.finish() }
            while true {
                if let chunk = try inflater.inflated() { return chunk }
                guard state.compressed.readableBytes > 0 else { return nil }
                let step = min(InflatedChunks.step, state.compressed.readableBytes)
                try inflater.inflate(state.compressed.readSlice(length: step)!)
            }
        }
    }

    /// Sends a redirect's next request, or reports the end (with the inflater's last bytes) or failure.
    private func completed(_ result: Result<Void, any Error>) {
        let (next, url, demand) = state.withLock { state in
            defer {
                state.next = nil
                state.demand = nil
            }
            if let next = state.next, case .success = result { state.request = next }
            return (state.next, state.request.url, state.demand)
        }
        switch result {
        case .success:
            if let next { return execute(next) }
            do {
                var finish = true
                while let chunk = try nextInflated(finish: finish) {
                    finish = false
                    events.chunk(chunk)
                }
                events.end()
            } catch {
                events.fail(InflatedChunks.decodingError(error))
            }
        case .failure(let error):
            demand?.fail(error)
            events.fail(AsyncHTTPClientTransport.trustFailure(error, url: url) ?? AsyncHTTPClientTransport.map(error))
        }
    }
}
#endif
