//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Runs one request: the interceptor chain (NetworkConfiguration/interceptors; the pipeline knows no stage) turns the
/// ServerRequest into a validated ServerResponse, and the request's mapping turns that into the model, once. The result
/// is a ContextOutcome (the model and whether its response came from the cache, as the answering stage said, or the
/// error): the only type that goes from the pipeline to the contexts, with the model's type erased so nothing between
/// the mapping and the handlers is generic over it.
enum RequestPipeline {
    /// Runs `serverRequest` for `request`. With a `broadcast`, progress and a cached answer go to its contexts as they
    /// happen; the terminal result is returned, not delivered. Cancelling the calling Task cancels the request: the
    /// transfer ends at once (scratch files removed) and the result is a failure.
    ///
    /// - Returns: the outcome, and whether the response it was (or could not be) read from came from the cache; `false`
    ///   when the chain failed.
    static func run<Model: Sendable>(
        _ request: BaseServerRequest<Model>, _ serverRequest: consuming ServerRequest,
        configuration: consuming NetworkConfiguration,
        requestId: String, broadcast: RequestBroadcast?
    ) async -> (ContextOutcome, fromCache: Bool) {
        let transfer = needsTransfer(serverRequest) ? RequestTransfer(clock: configuration.clock) : nil
        if let broadcast, let transfer {
            transfer.connect { progress, direction in broadcast.emitProgress(progress, for: direction) }
        }
        var monitoring: RequestMonitoring?
        if !configuration.monitors.isEmpty {
            monitoring = RequestMonitoring(
                monitors: configuration.monitors, id: requestId, request: copy serverRequest,
                interceptors: configuration.interceptors, clock: configuration.clock, encoder: configuration.encoder)
            monitoring?.hold(.requests) { monitor, request in monitor.requestDidStart(request) }
        }
        // The configuration moves into the exchange: a copy of its settings is a retain of each.
        let exchange = Exchange(
            configuration: consume configuration, requestId: requestId, transfer: transfer,
            progressWatch: broadcast.map { .broadcast($0) }, monitoring: monitoring)
        var result: ContextOutcome
        var fromCache = false
        if let transfer {
            let sending = copy serverRequest  // a closure cannot consume what it captures
            (result, fromCache) = await withTaskCancellationHandler {
                await execute(request, sending, exchange: exchange)
            } onCancel: {
                transfer.cancel()
            }
            transfer.finish(succeeded: result.isSuccess && !Task.isCancelled)
            if let resumeData = transfer.resumeData { result = result.carrying(resumeData) }
        } else {
            (result, fromCache) = await execute(request, serverRequest, exchange: exchange)
            // Made only if a context watches the progress: it closes each direction at 1.0.
            broadcast?.watchedTransfer()?.finish(succeeded: result.isSuccess && !Task.isCancelled)
        }
        if let monitoring { monitoring.finish(Task.isCancelled ? nil : result.monitoredOutcome) }
        return (result, fromCache)
    }

    private static func execute<Model: Sendable>(
        _ request: BaseServerRequest<Model>, _ serverRequest: consuming ServerRequest, exchange: Exchange
    ) async -> (ContextOutcome, fromCache: Bool) {
        let response: ServerResponse
        do {
            response = try await InterceptorChain(exchange: exchange, index: 0).proceed(serverRequest)
        } catch {
            return (.failure(error), false)
        }
        do {
            let clock = exchange.configuration.clock
            // Timed only for monitors: a request without them reads no clock here.
            let decodeStart = exchange.monitoring?.wants(.requests) == true ? clock.stopwatch() : nil
            let decoder = exchange.configuration.decoder
            let model: Model
            if request.mapsAsynchronously {
                model = try await request.mapResponse(response, decoder: decoder)
            } else {
                model = try request.map(response, decoder: decoder)
            }
            if let monitoring = exchange.monitoring, let decodeStart {
                let decoding = MonitoredDecoding(
                    modelType: TypeNames.name(of: Model.self), duration: decodeStart.elapsed())
                monitoring.hold(.requests) { monitor, request in monitor.request(request, didDecode: decoding) }
            }
            return (.success(model, fromCache: response.isFromCache), response.isFromCache)
        } catch {
            return (.failure(error), response.isFromCache)
        }
    }

    /// Whether the request needs a transfer of its own: it streams a multipart body or downloads to a file (both use
    /// scratch files). Progress alone gets one only when a context watches it (RequestBroadcast/watchedTransfer()).
    private static func needsTransfer(_ request: ServerRequest) -> Bool {
        if request.downloadDestination != nil || request.hasResumeData { return true }
        if case .multipart = request.parameters { return true }
        return false
    }
}

extension ContextOutcome {
    /// The outcome as monitors see it; `nil` for a cancellation.
    var monitoredOutcome: RequestMetrics.Outcome? {
        switch self {
        case .success(_, let fromCache): return .success(fromCache: fromCache)
        case .failure(let error):
            if let error = error as? BaseServerError, error.code == .cancelled { return nil }
            return .failure(error)
        case .cancelled: return nil
        }
    }

    /// The failure with `resumeData` on its error, so the caller can resume the download; a result that cannot carry it
    /// (a success, an error of another type) has the partial file removed instead.
    func carrying(_ resumeData: DownloadResumeData) -> ContextOutcome {
        if case .failure(let error) = self,
            var carried = error as? BaseServerError ?? (error is CancellationError ? .cancelled : nil)
        {
            carried.resumeData = resumeData
            return .failure(carried)
        }
        resumeData.removePartialFile()
        return self
    }

    /// The resume data the failure carries, if any.
    var resumeData: DownloadResumeData? {
        if case .failure(let error) = self { (error as? BaseServerError)?.resumeData } else { nil }
    }

    var isSuccess: Bool { if case .success = self { true } else { false } }
}
