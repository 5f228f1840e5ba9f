//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The request a monitor event is about.
public struct MonitoredRequest: Sendable, Hashable {
    /// The request's id in the TaskPool.
    public let id: String
    /// The method.
    public let method: HTTPMethod
    /// The URL the request is sent to, redacted; before the preparators ran (the start event) without their query
    /// items. A request whose URL cannot be built shows its base and relative URL.
    public let url: String
    /// The host the request goes to, `"-"` when none; read it here, not from ``url`` (which may not parse).
    public var host: String { hostURL?.host ?? otherHostURL?.host ?? "-" }
    /// ``host`` is read lazily: `URL.host` decodes, and most monitors never ask.
    let hostURL: URL?
    /// The request's base URL, when ``hostURL`` has no host.
    let otherHostURL: URL?

    /// ``url`` when it is the redaction of `sent`, so an exchange's URL is not redacted twice.
    func redactedURL(of sent: URL) -> String? {
        hostURL == sent ? url : nil
    }

    public static func == (left: MonitoredRequest, right: MonitoredRequest) -> Bool {
        left.id == right.id && left.method == right.method && left.url == right.url && left.host == right.host
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(host)
    }
}

/// What the transport returned for one attempt.
public struct MonitoredResponse: Sendable {
    /// The HTTP status.
    public let statusCode: Int
    /// The bytes of the body that arrived, also when they went to a file or a streaming reader.
    public let bytes: Int
    /// From handing the request to the transport to the complete response.
    public let duration: Duration
    /// The attempt, from 1.
    public let attempt: Int
}

/// A retry the retry stage scheduled.
public struct MonitoredRetry: Sendable {
    /// The attempt that will be made, from 2.
    public let attempt: Int
    /// The most attempts there will be.
    public let maximumAttempts: Int
    /// How long the stage waits first.
    public let delay: Duration
    /// Why: `"status 503"`, or the error code, for example `"timeout"`.
    public let reason: String

    /// Creates the event, for a stage of yours that sends a request again.
    public init(attempt: Int, maximumAttempts: Int, delay: Duration, reason: String) {
        self.attempt = attempt
        self.maximumAttempts = maximumAttempts
        self.delay = delay
        self.reason = reason
    }
}

/// What the cache stage did.
public enum CacheEvent: String, Sendable {
    /// An entry answered or was delivered (`cacheOnly`, `firstCacheThenRefreshFromServer`, fresh under
    /// `cacheIfFreshElseServer`).
    case hit
    /// No entry was found, or (`cacheIfFreshElseServer`) the entry was not fresh.
    case miss
    /// The server confirmed the entry with `304 Not Modified`.
    case revalidated
    /// The server failed and the entry answered instead (`serverIfFailReadFromCache`, or `stale-if-error` under
    /// `cacheIfFreshElseServer`).
    case fallback
}

/// A token refresh the request waited for after the server rejected its token.
public enum TokenRefreshEvent: Sendable, Equatable {
    /// The request waits for a refresh (which it may have started).
    case started
    /// The refresh ended; `succeeded` tells whether the request goes out again with a new token.
    case finished(succeeded: Bool)
}

/// The mapping of a response to the model.
public struct MonitoredDecoding: Sendable {
    /// The model type, as `String(describing:)` prints it.
    public let modelType: String
    /// How long the mapping took.
    public let duration: Duration
}

/// How a request ended and where its time went.
public struct RequestMetrics: Sendable {
    /// How the request ended.
    public enum Outcome: Sendable {
        /// A model, from the server or (`fromCache`) from the cache.
        case success(fromCache: Bool)
        /// An error.
        case failure(any Error)
    }

    /// The time one stage spent, not counting the stages after it.
    public struct StageTiming: Sendable, Equatable {
        /// The stage's type name, or `"transport"` for the transport call.
        public let stage: String
        /// Its own time, summed over every attempt.
        public let duration: Duration
    }

    /// How the request ended.
    public let outcome: Outcome
    /// From the start of the chain to the end of the mapping.
    public let totalDuration: Duration
    /// How many attempts the transport saw.
    public let attempts: Int
    /// The time each stage spent, in chain order, the transport last.
    public let stages: [StageTiming]
}
