//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension BaseServerRequest {
    /// Runs `serverRequest` under a CachePolicy that reads the cache, composing the pipeline's runs as the policy asks;
    /// the chain and its cache stage see one policy per run.
    ///
    /// - CachePolicy/firstCacheThenRefreshFromServer, with contexts to tell (`broadcast`): a run under `cacheOnly`
    ///   first, whose model goes to `onCacheSuccess` (nothing when there is no entry or it cannot be read), then the
    ///   run that asks the server. The first run stops at the cache stage, so a cached answer never waits for a token
    ///   refresh.
    /// - An entry the request cannot read (its mapping fails on it) is a miss: under CachePolicy/cacheIfFreshElseServer
    ///   the request is sent again under `serverOnly`, and the server's answer replaces the entry; under the other
    ///   policies the request fails with `cacheMiss`, the mapping's error as its underlying error. (An entry the
    ///   validators reject, the cache stage already treats as a miss.)
    func answerReadingCache(
        _ serverRequest: ServerRequest, configuration: NetworkConfiguration, requestId: String,
        broadcast: RequestBroadcast?
    ) async -> ContextOutcome {
        let policy = serverRequest.cachePolicy
        if policy == .firstCacheThenRefreshFromServer, let broadcast {
            var cacheOnly = serverRequest
            cacheOnly.cachePolicy = .cacheOnly
            // The monitors hear of one request: the run that asks the server reports the hit. Only a monitor that
            // records exchanges hears this run, and only its exchange: the cached answer is one (a HAR entry marked as
            // from the cache).
            var quiet = configuration
            if !quiet.monitors.isEmpty {  // a copy of the settings only when needed
                quiet.monitors = configuration.monitors.filter { $0.exchangeBodyLimit != nil }.map(ExchangesOnly.init)
            }
            let (cached, _) = await RequestPipeline.run(
                self, cacheOnly, configuration: quiet, requestId: requestId, broadcast: nil)
            if case .success(let model, _) = cached { broadcast.emitCache(model) }
        }
        let (outcome, fromCache) = await RequestPipeline.run(
            self, serverRequest, configuration: configuration, requestId: requestId, broadcast: broadcast)
        guard fromCache, case .failure(let error) = outcome, !Task.isCancelled else { return outcome }
        guard policy == .cacheIfFreshElseServer else {
            return .failure(
                BaseServerError(
                    code: .cacheMiss, message: "the cached answer cannot be read by the request's mapping",
                    underlyingError: error))
        }
        var fromServer = serverRequest
        fromServer.cachePolicy = .serverOnly
        return await RequestPipeline.run(
            self, fromServer, configuration: configuration, requestId: requestId, broadcast: broadcast
        ).0
    }
}

/// Of a monitor's events, its exchanges alone: what a recorder hears of the cache-only run of
/// CachePolicy/firstCacheThenRefreshFromServer, whose other events the server run tells.
private struct ExchangesOnly: NetworkEventMonitor {
    let base: any NetworkEventMonitor

    var queue: DispatchQueue { base.queue }
    var runsInline: Bool { base.runsInline }
    var events: NetworkMonitorEvents { [] }
    var exchangeBodyLimit: Int? { base.exchangeBodyLimit }

    func request(_ request: MonitoredRequest, didExchange exchange: MonitoredExchange) {
        base.request(request, didExchange: exchange)
    }
}
