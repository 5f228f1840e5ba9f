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

/// What the stages of one request share besides the request value: its id, configuration and transfer (progress,
/// scratch files, download). One per request; stages reach it only through their InterceptorChain. The last stage of
/// every chain, `send(_:)`, encodes the request and hands it to the transport.
final class Exchange: Sendable {
    let configuration: NetworkConfiguration
    let interceptors: [any Interceptor]
    let requestId: String
    /// `nil` when the request has no file to stream or download, and then made only for a ``progressWatch``.
    let transfer: RequestTransfer?
    /// Where a request without a ``transfer`` finds one once a context watches its progress; `nil` when nobody can.
    let progressWatch: ProgressWatch?
    /// The configuration's monitors for this request; `nil` when it has none.
    let monitoring: RequestMonitoring?

    init(
        configuration: NetworkConfiguration, requestId: String, transfer: RequestTransfer?,
        progressWatch: ProgressWatch? = nil, monitoring: RequestMonitoring?
    ) {
        self.configuration = configuration
        self.interceptors = configuration.interceptors
        self.requestId = requestId
        self.transfer = transfer
        self.progressWatch = transfer == nil ? progressWatch : nil
        self.monitoring = monitoring
    }

    /// The end of every chain: encodes `request`, sends it through the transport, maps the transport's failure once and
    /// logs both ways. Logging and monitoring are in synchronous functions: an async frame holds the values of all code
    /// inlined into it, and a frame over the Task's 1 KB slab is a `malloc` per Task.
    func send(_ request: ServerRequest) async throws -> ServerResponse {
        if Task.isCancelled { throw BaseServerError.cancelled }
        // `cacheOnly` never reaches the network; no stage answered it (no cache adapter, or its stage was removed).
        if request.cachePolicy == .cacheOnly {
            throw BaseServerError(code: .cacheMiss, message: "no cache adapter is configured")
        }
        // When a monitor records exchanges: when the request was handed over, to time its wait.
        let handedOver = monitoring?.exchangeBodyLimit.map { _ in
            HandedOver(date: configuration.clock.currentDate, stopwatch: configuration.clock.stopwatch())
        }
        // Without a transfer the encoding is synchronous: no frame of its own.
        var transportRequest = transfer == nil ? try encodeInMemory(request) : try await encode(request)
        var cookies: ExchangeDriver.Cookies?
        if let storage = configuration.cookieStorage {
            let own = transportRequest.value(forHTTPHeaderField: "Cookie")
            cookies = ExchangeDriver.Cookies(storage: storage, own: own)
            let now = configuration.clock.currentDate
            transportRequest.setValue(
                CookieJar.header(for: transportRequest.url, own: own, from: storage, now: now),
                forHTTPHeaderField: "Cookie")
        }
        // Nobody sees the head before the body unless the body is streamed to service code.
        transportRequest.bodyIsCollected = request.responseBodyStream == nil
        let watched = configuration.logger != nil || monitoring != nil
        let attempt = watched ? announce(transportRequest, handedOver: handedOver) : Attempt()
        let start = configuration.clock.stopwatch()
        do {
            let limits = ExchangeStateMachine.Limits(
                timeout: transportRequest.timeout, idle: configuration.idleTimeout,
                bufferLimit: configuration.transport.bodyBufferLimit,
                holdsHeadForBody: transportRequest.bodyIsCollected)
            let received = try await exchange(
                transportRequest, for: request, limits: limits, cookies: cookies, start: start,
                attempt: attempt.number, keeping: monitoring?.exchangeBodyLimit)
            if let cookies = configuration.cookieStorage {
                CookieJar.store(
                    received.headers, from: received.url ?? transportRequest.url, in: cookies,
                    now: configuration.clock.currentDate)
            }
            var response = ServerResponse(
                statusCode: received.statusCode, headers: received.headers, data: received.body,
                transportRequest: transportRequest, url: received.url, duration: start.elapsed(),
                downloadedFileURL: received.file)
            // The mapping reads through it without copying the response to set it.
            response.decoder = configuration.decoder
            if watched { report(response, received: received, of: attempt) }
            return response
        } catch {
            throw failure(error, of: attempt, sent: transportRequest, after: start.elapsed())
        }
    }

    /// When an attempt was handed over (a struct: a tuple's metadata is looked up at run time).
    private struct HandedOver {
        let date: Date
        let stopwatch: Stopwatch
    }

    /// What the logger and the monitors know of an attempt.
    private struct Attempt {
        /// The request as the logger sees it; `nil` without a logger.
        var urlRequest: URLRequest?
        /// The monitors' count of the request's attempts; `0` without monitors.
        var number = 0
        /// With a monitor that records exchanges: when the attempt was handed over, and how long it waited to be sent.
        var handedOver: Date?
        var blocked = Duration.zero
    }

    /// Logs `transportRequest` and tells the monitors it is sent.
    private func announce(_ transportRequest: TransportRequest, handedOver: HandedOver?) -> Attempt {
        var attempt = Attempt()
        if let logger = configuration.logger {
            // A URLRequest only for the logger: building one is not free on Linux.
            let urlRequest = transportRequest.urlRequest
            attempt.urlRequest = urlRequest
            logger.log(NetworkLogEntry.request(urlRequest, id: requestId, bodies: logger.includesBodies))
        }
        guard let monitoring else { return attempt }
        let number = monitoring.countAttempt()
        attempt.number = number
        attempt.handedOver = handedOver?.date
        attempt.blocked = handedOver?.stopwatch.elapsed() ?? .zero
        monitoring.sending(to: transportRequest.url)
        guard monitoring.wants(.attempts) else {
            monitoring.flush()
            return attempt
        }
        let redacted = RequestMonitoring.redacted(transportRequest)
        monitoring.emit(.attempts) { monitor, request in
            monitor.request(request, didPrepare: redacted)
            monitor.request(request, willSendAttempt: number)
        }
        return attempt
    }

    /// Logs `response` and tells the monitors of it.
    private func report(_ response: ServerResponse, received: ReceivedResponse, of attempt: Attempt) {
        if let logger = configuration.logger {
            logger.log(NetworkLogEntry.response(response, id: requestId, bodies: logger.includesBodies))
        }
        guard let monitoring else { return }
        let monitored = MonitoredResponse(
            statusCode: received.statusCode, bytes: Int(received.bytes), duration: response.duration,
            attempt: attempt.number)
        monitoring.hold(.attempts) { monitor, request in monitor.request(request, didReceive: monitored) }
        if let handedOver = attempt.handedOver {
            let wait = received.headAt ?? response.duration
            monitoring.exchanged(
                .init(
                    attempt: attempt.number, startedAt: handedOver, request: response.transportRequest,
                    response: received,
                    error: nil, blocked: attempt.blocked, wait: wait, receive: response.duration - wait))
        }
    }

    /// The failure of `attempt` as a ``BaseServerError``, logged and told to the monitors.
    private func failure(
        _ error: any Error, of attempt: Attempt, sent transportRequest: TransportRequest, after duration: Duration
    ) -> BaseServerError {
        let mapped = TransportErrorMapper.map(error)
        if let logger = configuration.logger, let urlRequest = attempt.urlRequest {
            logger.log(NetworkLogEntry.failure(urlRequest, error: mapped, duration: duration, id: requestId))
        }
        monitoring?.hold(.attempts) { monitor, request in monitor.request(request, didFailAttemptWith: mapped) }
        if let monitoring, let handedOver = attempt.handedOver {
            monitoring.exchanged(
                .init(
                    attempt: attempt.number, startedAt: handedOver, request: transportRequest, response: nil,
                    error: mapped, blocked: attempt.blocked, wait: duration, receive: .zero))
        }
        return mapped
    }

    /// Sends `transportRequest` through the configuration's transport within `limits` and reads its body. `start` and
    /// `attempt` serve a streamed body's monitors; with `keeping` (a monitor records exchanges) the head is timed and a
    /// streamed body's first `keeping` bytes are kept.
    private func exchange(
        _ transportRequest: TransportRequest, for request: ServerRequest, limits: ExchangeStateMachine.Limits,
        cookies: ExchangeDriver.Cookies?, start: Stopwatch, attempt: Int, keeping: Int?
    ) async throws -> ReceivedResponse {
        // Made only for a streamed body that monitors watch: a closure is an allocation.
        var streamStarted: (@Sendable (Int) -> Void)?
        if request.responseBodyStream != nil, let monitoring, monitoring.wants(.attempts) {
            streamStarted = { statusCode in
                let head = MonitoredResponse(
                    statusCode: statusCode, bytes: 0, duration: start.elapsed(), attempt: attempt)
                monitoring.emit(.attempts) { monitor, request in monitor.request(request, didStartStreaming: head) }
            }
        }
        let reader = BodyReader(
            memoryLimit: configuration.maximumResponseBodySize, fileLimit: configuration.maximumDownloadSize,
            // The request's own transfer if its progress goes anywhere (asked once: a chunk without a sink then costs
            // no lock or clock read), or the watch that may make one.
            progressWatch: transfer.flatMap { $0.reportsProgress ? .transfer($0) : nil } ?? progressWatch,
            streamStarted: streamStarted, keepsPrefix: keeping ?? 0)
        let transport = configuration.transport
        let clock = configuration.clock
        let open: @Sendable (TransportRequest) async throws -> TransportResponse = { request in
            try await ExchangeDriver.send(request, through: transport, limits: limits, clock: clock, cookies: cookies)
        }
        if let transfer {
            return try await transfer.send(transportRequest, for: request, opening: open, reader: reader)
        }
        let response = try await open(transportRequest)
        guard keeping != nil else { return try await Self.read(response, for: request, reader: reader) }
        let headAt = start.elapsed()
        var received = try await Self.read(response, for: request, reader: reader)
        received.headAt = headAt
        return received
    }

    /// Reads `response`'s body: to a streaming reader for a `2xx` of a request that has one, else into memory.
    static func read(_ response: TransportResponse, for request: ServerRequest, reader: BodyReader) async throws
        -> ReceivedResponse
    {
        if let stream = request.responseBodyStream, (200..<300).contains(response.statusCode) {
            stream.receiveHead(status: response.statusCode, headers: response.headers)
            return try await reader.forward(response, to: stream)
        }
        return try await reader.collect(response)
    }

    /// Encodes a request without a transfer: its body in memory, watched for upload progress when a context may ask.
    private func encodeInMemory(_ request: ServerRequest) throws -> TransportRequest {
        var encoded = try RequestEncoder.encode(
            request, encoder: configuration.encoder, defaultTimeout: configuration.timeout)
        if let progressWatch, !encoded.body.isEmpty {
            encoded.body.observer = UploadObserver { sent, total in
                progressWatch.watchedTransfer()?.report(.upload, completed: sent, expected: total)
            }
        }
        return encoded
    }

    private func encode(_ request: ServerRequest) async throws -> TransportRequest {
        guard let transfer else { return try encodeInMemory(request) }
        let encoder = configuration.encoder
        let timeout = configuration.timeout
        let files = transfer.temporaryFiles
        return try await transfer.encode(request) { request in
            try RequestEncoder.encode(request, encoder: encoder, defaultTimeout: timeout, temporaryFiles: files)
        }
    }
}
