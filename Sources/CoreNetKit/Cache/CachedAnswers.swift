//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension BaseServerRequest {
    /// Runs `serverRequest` under a cache-reading CachePolicy as pipeline runs of one policy each: with a `broadcast`,
    /// `firstCacheThenRefreshFromServer` first runs `cacheOnly` for `onCacheSuccess`, then the server run. An entry the
    /// mapping fails on is a miss: `cacheIfFreshElseServer` re-sends under `serverOnly`; other policies fail with
    /// `cacheMiss`, the mapping's error underlying.
    func answerReadingCache(
        _ serverRequest: ServerRequest, configuration: NetworkConfiguration, requestId: String,
        broadcast: RequestBroadcast?
    ) async -> ContextOutcome {
        let policy = serverRequest.cachePolicy
        if policy == .firstCacheThenRefreshFromServer, let broadcast {
            var cacheOnly = serverRequest
            cacheOnly.cachePolicy = .cacheOnly
            // Monitors hear of one request (the server run reports the hit); recorders hear only this run's exchange.
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

/// A monitor that hears only exchanges: a recorder's view of the cache-only run.
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
