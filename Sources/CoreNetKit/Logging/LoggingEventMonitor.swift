//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if Logging
import Dispatch
import Foundation
import Logging

/// A ``NetworkEventMonitor`` that writes one structured swift-log entry per event (package trait `Logging`).
///
/// ```swift
/// var logger = Logger(label: "api")
/// logger.logLevel = .debug
/// NetworkConfiguration.default.monitors.append(LoggingEventMonitor(logger: logger))
/// ```
///
/// | Event | Message | Level |
/// |---|---|---|
/// | an attempt is handed to the transport | `http request` | ``requestLevel`` (`debug`) |
/// | the transport returned a response | `http response` | ``requestLevel`` (`debug`) |
/// | an attempt failed in the transport | `http attempt failed` | ``requestLevel`` (`debug`) |
/// | the retry stage will send again | `http retry` | ``retryLevel`` (`warning`) |
/// | the request ended with an error | `http request failed` | ``failureLevel`` (`error`) |
/// | the request ended with a model | `http request finished` | ``requestLevel`` (`debug`) |
/// | the request was cancelled | `http request cancelled` | ``requestLevel`` (`debug`) |
///
/// Metadata keys follow OpenTelemetry HTTP names where there is one: `http.request.method`, `url.full` (redacted
/// with ``LogRedactor/mask``), `http.response.status_code`, `http.response.body.size`; CoreNetKit's own are
/// `corenetkit.request_id` (the ``TaskPool`` id), `corenetkit.attempt`, `corenetkit.duration_ms`, `corenetkit.error`
/// (the ``BaseServerError/Code-swift.struct``), `corenetkit.retry_delay_ms`, `corenetkit.retry_reason`,
/// `corenetkit.from_cache`. No header, body, token or server message is ever put in the metadata.
///
/// Every method runs on ``queue``, once per event, in the order the events happened; a request's last entry is its
/// finish, failure or cancellation.
public struct LoggingEventMonitor: NetworkEventMonitor {
    /// The logger entries are written to; its own metadata and level apply.
    public let logger: Logger
    /// The level of per-attempt entries, successful finishes and cancellations.
    public let requestLevel: Logger.Level
    /// The level of an entry announcing a retry.
    public let retryLevel: Logger.Level
    /// The level of the entry for a request that ended with an error.
    public let failureLevel: Logger.Level
    /// The serial queue the monitor runs on.
    public let queue: DispatchQueue

    /// Creates a monitor writing to `logger`; set its `logLevel` to `.debug` to see every attempt.
    public init(
        logger: Logger, requestLevel: Logger.Level = .debug, retryLevel: Logger.Level = .warning,
        failureLevel: Logger.Level = .error, queue: DispatchQueue = NetworkMonitorQueue.shared
    ) {
        self.logger = logger
        self.requestLevel = requestLevel
        self.retryLevel = retryLevel
        self.failureLevel = failureLevel
        self.queue = queue
    }

    public func request(_ request: MonitoredRequest, willSendAttempt attempt: Int) {
        var metadata = Self.metadata(request)
        metadata["corenetkit.attempt"] = "\(attempt)"
        logger.log(level: requestLevel, "http request", metadata: metadata)
    }

    public func request(_ request: MonitoredRequest, didReceive response: MonitoredResponse) {
        var metadata = Self.metadata(request)
        metadata["http.response.status_code"] = "\(response.statusCode)"
        metadata["http.response.body.size"] = "\(response.bytes)"
        metadata["corenetkit.duration_ms"] = "\(Self.milliseconds(response.duration))"
        metadata["corenetkit.attempt"] = "\(response.attempt)"
        logger.log(level: requestLevel, "http response", metadata: metadata)
    }

    public func request(_ request: MonitoredRequest, didFailAttemptWith error: BaseServerError) {
        var metadata = Self.metadata(request)
        Self.add(error, to: &metadata)
        logger.log(level: requestLevel, "http attempt failed", metadata: metadata)
    }

    public func request(_ request: MonitoredRequest, willRetry retry: MonitoredRetry) {
        var metadata = Self.metadata(request)
        metadata["corenetkit.attempt"] = "\(retry.attempt)"
        metadata["corenetkit.max_attempts"] = "\(retry.maximumAttempts)"
        metadata["corenetkit.retry_delay_ms"] = "\(Self.milliseconds(retry.delay))"
        metadata["corenetkit.retry_reason"] = .string(retry.reason)
        logger.log(level: retryLevel, "http retry", metadata: metadata)
    }

    public func request(_ request: MonitoredRequest, didFinish metrics: RequestMetrics) {
        var metadata = Self.metadata(request)
        metadata["corenetkit.duration_ms"] = "\(Self.milliseconds(metrics.totalDuration))"
        metadata["corenetkit.attempts"] = "\(metrics.attempts)"
        switch metrics.outcome {
        case .success(let fromCache):
            metadata["corenetkit.from_cache"] = "\(fromCache)"
            logger.log(level: requestLevel, "http request finished", metadata: metadata)
        case .failure(let error):
            Self.add(error, to: &metadata)
            logger.log(level: failureLevel, "http request failed", metadata: metadata)
        }
    }

    public func requestWasCancelled(_ request: MonitoredRequest) {
        logger.log(level: requestLevel, "http request cancelled", metadata: Self.metadata(request))
    }

    private static func metadata(_ request: MonitoredRequest) -> Logger.Metadata {
        [
            "http.request.method": .string(request.method.rawValue),
            "url.full": .string(request.url),
            "corenetkit.request_id": .string(request.id),
        ]
    }

    /// Never the error's body or server message, which may echo what the client sent.
    private static func add(_ error: any Error, to metadata: inout Logger.Metadata) {
        let mapped = error as? BaseServerError
        metadata["corenetkit.error"] = .string(mapped?.code.description ?? String(describing: type(of: error)))
        if let status = mapped?.statusCode { metadata["http.response.status_code"] = "\(status)" }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
#endif
