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

/// What the stages of one request share besides the request value: its id, its configuration,
/// its transfer (progress, scratch files, download) and where a cached answer goes. The last
/// stage of every chain, `send(_:)`, encodes the request and hands it to the transport.
///
/// One per request; stages reach it only through the InterceptorChain they are given.
final class Exchange: Sendable {
    let configuration: NetworkConfiguration
    let interceptors: [any Interceptor]
    let requestId: String
    /// `nil` when nobody can see progress and the request has no file to stream or download:
    /// then the request needs no transfer bookkeeping at all.
    let transfer: RequestTransfer?
    /// Maps a response with the request's own mapping and says whether a model came out; when
    /// the flag is set, also hands that model to the contexts' `onCacheSuccess`.
    typealias ModelReader = @Sendable (_ response: ServerResponse, _ deliverAsCached: Bool) async -> Bool

    /// The request's mapping, for the cache stage; `nil` when the configuration has no cache.
    private let modelReader: ModelReader?
    /// Whether a context listens for a cached answer before the server's
    /// (`firstCacheThenRefreshFromServer` through ``BaseServerRequest/perform()``).
    let wantsCachedResponse: Bool
    /// The configuration's monitors for this request; `nil` when it has none.
    let monitoring: RequestMonitoring?

    init(
        configuration: NetworkConfiguration, requestId: String, transfer: RequestTransfer?,
        modelReader: ModelReader?, deliversCachedModels: Bool, monitoring: RequestMonitoring?
    ) {
        self.configuration = configuration
        self.interceptors = configuration.interceptors
        self.requestId = requestId
        self.transfer = transfer
        self.modelReader = modelReader
        self.wantsCachedResponse = deliversCachedModels && modelReader != nil
        self.monitoring = monitoring
    }

    /// Hands the model of a response read from the cache to the request's contexts, before the
    /// server's answer.
    func deliverCached(_ response: ServerResponse) async {
        guard wantsCachedResponse else { return }
        _ = await modelReader?(response, true)
    }

    /// Whether the request's mapping reads a model from `response`: a response revalidated in
    /// the background is stored only then, as the pipeline does with the request's own answer.
    func mapsResponse(_ response: ServerResponse) async -> Bool {
        await modelReader?(response, false) ?? true
    }

    /// The end of every chain: encodes `request`, sends it through the transport, maps the
    /// transport's failure once and logs both ways.
    func send(_ request: ServerRequest) async throws -> ServerResponse {
        if Task.isCancelled { throw BaseServerError.cancelled }
        var transportRequest = try await encode(request)
        if let cookies = configuration.cookieStorage {
            CookieJar.attach(to: &transportRequest, from: cookies, now: configuration.clock.currentDate)
        }
        let logger = configuration.logger
        // A URLRequest only for those who read one: building it is not free on Linux.
        let urlRequest = logger != nil || monitoring != nil ? transportRequest.urlRequest : nil
        if let logger, let urlRequest {
            logger.log(NetworkLogEntry.request(urlRequest, id: requestId, bodies: logger.includesBodies))
        }
        let attempt = monitoring?.countAttempt() ?? 0
        if let monitoring, let urlRequest {
            monitoring.sending(to: transportRequest.url)
            let redacted = RequestMonitoring.redacted(urlRequest)
            monitoring.emit { monitor, request in
                monitor.request(request, didPrepare: redacted)
                monitor.request(request, willSendAttempt: attempt)
            }
        }
        let clock = configuration.clock
        let start = clock.now
        do {
            let raw: TransportResponse
            var file: URL?
            if let transfer {
                (raw, file) = try await transfer.send(transportRequest, through: configuration.transport)
            } else {
                raw = try await configuration.transport.send(transportRequest)
            }
            if let cookies = configuration.cookieStorage {
                CookieJar.store(
                    raw.headers, from: raw.url ?? transportRequest.url, in: cookies,
                    now: configuration.clock.currentDate)
            }
            let response = ServerResponse(
                statusCode: raw.statusCode, headers: raw.headers, data: raw.body, transportRequest: transportRequest,
                url: raw.url,
                duration: clock.elapsed(since: start), downloadedFileURL: file)
            if let logger {
                logger.log(NetworkLogEntry.response(response, id: requestId, bodies: logger.includesBodies))
            }
            if let monitoring {
                let received = MonitoredResponse(
                    statusCode: raw.statusCode, bytes: raw.body.count, duration: response.duration, attempt: attempt)
                monitoring.emit { monitor, request in monitor.request(request, didReceive: received) }
            }
            return response
        } catch {
            let mapped = TransportErrorMapper.map(error)
            if let logger, let urlRequest {
                let entry = NetworkLogEntry.failure(
                    urlRequest, error: mapped, duration: clock.elapsed(since: start), id: requestId)
                logger.log(entry)
            }
            monitoring?.emit { monitor, request in monitor.request(request, didFailAttemptWith: mapped) }
            throw mapped
        }
    }

    private func encode(_ request: ServerRequest) async throws -> TransportRequest {
        let encoder = configuration.encoder
        let timeout = configuration.timeout
        guard let transfer else {
            return try RequestEncoder.encode(request, encoder: encoder, defaultTimeout: timeout)
        }
        let files = transfer.temporaryFiles
        return try await transfer.encode(request) { request in
            try RequestEncoder.encode(request, encoder: encoder, defaultTimeout: timeout, temporaryFiles: files)
        }
    }
}
