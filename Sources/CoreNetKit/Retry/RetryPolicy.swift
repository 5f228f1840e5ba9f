//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// When and how often a failed request is sent again: which methods, statuses and failures, how many attempts, and
/// how long to wait between them.
///
/// Retrying is off until a policy is set, in the configuration for every request or on one request:
///
/// ```swift
/// NetworkConfiguration.default.retryPolicy = RetryPolicy()          // the defaults below
/// ServerRequest(method: .get, baseUrl: api, relativeUrl: "/feed", retryPolicy: .never)
/// ```
///
/// By default only idempotent methods (`GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`) are retried, on `408`, `429`,
/// `500`, `502`, `503`, `504` and on failures meaning the request may not have reached the server (cannot connect,
/// connection lost, timeout), at most 3 attempts in all. A `POST` or `PATCH` is retried only with an
/// `Idempotency-Key` header or when the policy says retriesNonIdempotentRequests. A `401` is never the retry stage's:
/// the access token stage refreshes and replays it.
///
/// The wait before attempt *n + 1* is exponential back-off with full jitter (a random time between zero and
/// `min(maximumDelay, baseDelay × 2ⁿ⁻¹)`), unless the response says `Retry-After` (seconds or an HTTP date), which
/// wins, capped at maximumRetryAfter.
public struct RetryPolicy: Sendable {
    /// How many times a request is sent at most, the first time included; `1` never retries.
    public var maximumAttempts: Int
    /// The back-off's base: the longest wait before the second attempt.
    public var baseDelay: Duration
    /// The longest computed wait.
    public var maximumDelay: Duration
    /// The longest wait a `Retry-After` header can ask for; a longer one is cut to this.
    public var maximumRetryAfter: Duration
    /// The statuses that are retried.
    public var retryableStatuses: Set<Int>
    /// The failures that are retried; ``BaseServerError/Code-swift.struct/serverTrust`` never is.
    public var retryableErrors: Set<BaseServerError.Code>
    /// The methods retried without further proof that it is safe.
    public var idempotentMethods: Set<HTTPMethod>
    /// Whether `POST`, `PATCH` and other non-idempotent requests are retried too; `false` by
    /// default (they are then retried only with an `Idempotency-Key` header).
    public var retriesNonIdempotentRequests: Bool
    /// Shared by this policy's requests so a server that is down isn't sent each several times; `nil` limits nothing.
    public var budget: RetryBudget?
    /// Where the back-off's jitter comes from: returns a number in `0..<1`. Random by default;
    /// return a constant for predictable waits (`{ 1 }` waits the full back-off).
    public var jitter: @Sendable () -> Double

    /// Creates a policy; every argument has the default described on its property.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(30),
        maximumRetryAfter: Duration = .seconds(60),
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableErrors: Set<BaseServerError.Code> = [.cannotConnect, .connectionLost, .timeout],
        idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options],
        retriesNonIdempotentRequests: Bool = false,
        budget: RetryBudget? = nil,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableStatuses = retryableStatuses
        self.retryableErrors = retryableErrors
        self.idempotentMethods = idempotentMethods
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
        self.budget = budget
        self.jitter = jitter
    }

    /// A policy that never retries: for one request when the configuration retries.
    public static var never: RetryPolicy { RetryPolicy(maximumAttempts: 1) }

    /// Whether `request` may be resent: an idempotent method, an `Idempotency-Key`, or retriesNonIdempotentRequests.
    public func mayRetry(_ request: ServerRequest) -> Bool {
        if retriesNonIdempotentRequests || idempotentMethods.contains(request.method) { return true }
        return request.headers.keys.contains { $0.caseInsensitiveCompare("Idempotency-Key") == .orderedSame }
    }

    /// The computed wait before attempt `attempt + 1`, after `attempt` attempts failed.
    public func backoff(after attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(maximumDelay, baseDelay * (1 << exponent))
        let fraction = min(max(jitter(), 0), 1)
        return ceiling * fraction
    }

    /// The wait a `Retry-After` value asks for at `now`, capped; `nil` when there is none or it can't be read.
    public func retryAfter(_ value: String?, now: Date) -> Duration? {
        guard let value = value.map({ String($0.trimmingHTTPWhitespace) }), !value.isEmpty else { return nil }
        let wait: Duration
        if let seconds = Int(value) {
            wait = .seconds(max(seconds, 0))
        } else if let date = HTTPDate.parse(value) {
            wait = .milliseconds(Int64(max(date.timeIntervalSince(now), 0) * 1000))
        } else {
            return nil
        }
        return min(wait, maximumRetryAfter)
    }
}

/// A retry allowance shared by many requests, so a server that is down or overloaded gets little more traffic than
/// usual instead of every request several times.
///
/// Works like gRPC's retry throttling: the budget starts full with `maximumTokens`; every retryable failure costs one
/// token, every answer that needs no retry gives back `tokenRatio`; a retry is allowed only while more than half the
/// tokens are left. Share one instance between the policies of requests to the same server.
public final class RetryBudget: Sendable {
    private let tokens: Locked<Double>
    /// The size of the budget.
    public let maximumTokens: Double
    /// What an answer that needs no retry gives back.
    public let tokenRatio: Double

    /// Creates a full budget of `maximumTokens` (10 by default, at least 1); each answer needing no retry gives back
    /// `tokenRatio` (0.1 by default).
    public init(maximumTokens: Double = 10, tokenRatio: Double = 0.1) {
        self.maximumTokens = max(maximumTokens, 1)
        self.tokenRatio = max(tokenRatio, 0)
        self.tokens = Locked(max(maximumTokens, 1))
    }

    /// The tokens left now.
    public var available: Double { tokens.withLock { $0 } }

    /// Takes one token for a failed attempt; `false` when the budget allows no retry now.
    public func recordFailure() -> Bool {
        tokens.withLock { tokens in
            tokens = max(tokens - 1, 0)
            return tokens > maximumTokens / 2
        }
    }

    /// Gives back `tokenRatio` for an answer that needed no retry.
    public func recordSuccess() {
        tokens.withLock { tokens in tokens = min(tokens + tokenRatio, maximumTokens) }
    }
}

/// The retry stage: sends a request through the rest of the chain again when its RetryPolicy (or the
/// configuration's) says so, waiting between attempts on the configuration's clock.
///
/// Every attempt goes through every later stage again: the cache is read again, the access token stage adds the
/// current token (refreshing after a `401`), appended interceptors run again, and the body is encoded and sent from
/// its start (a streamed file is reopened). The attempt number is in ServerRequest/attempt. Cancelling during a wait
/// ends it at once. A refused server certificate (``BaseServerError/Code-swift.struct/serverTrust``) is never
/// retried, even if a policy lists it: the next attempt would meet the same certificate. A request whose 2xx body
/// already began streaming to its reader (the OpenAPI client transport) is not sent again: its outcome is final.
///
/// It is the stage of NetworkConfiguration/retryPolicy: setting that replaces it in the list.
public struct RetryInterceptor: Interceptor, BuiltInStage {
    /// The policy of requests that bring none (ServerRequest/retryPolicy); `nil` retries only those that do.
    public var policy: RetryPolicy?

    /// Creates the stage.
    public init(policy: RetryPolicy? = nil) { self.policy = policy }

    var isOff: Bool { false }

    public func intercept(_ request: consuming ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        guard let policy = request.retryPolicy ?? policy, policy.maximumAttempts > 1, policy.mayRetry(request)
        else { return try await next.proceed(request) }
        var attempt = request
        attempt.attemptCount = policy.maximumAttempts
        var number = 1
        // Once a streamed 2xx body reached its reader, another attempt would mix two responses.
        var streamed: Bool { attempt.hasStartedStreaming }
        while true {
            attempt.attempt = number
            let delay: Duration
            let reason: String
            do {
                let response = try await next.proceed(attempt)
                guard policy.retryableStatuses.contains(response.statusCode), !streamed else {
                    policy.budget?.recordSuccess()
                    return response
                }
                guard policy.budget?.recordFailure() ?? true, number < policy.maximumAttempts else { return response }
                let asked = policy.retryAfter(response.headers["Retry-After"], now: next.clock.currentDate)
                delay = asked ?? policy.backoff(after: number)
                reason = "status \(response.statusCode)"
            } catch let error as BaseServerError
                where policy.retryableErrors.contains(error.code) && error.code != .serverTrust && !streamed
            {
                guard policy.budget?.recordFailure() ?? true, number < policy.maximumAttempts else { throw error }
                delay = policy.backoff(after: number)
                reason = error.code.description
            }
            let retry = MonitoredRetry(
                attempt: number + 1, maximumAttempts: policy.maximumAttempts, delay: delay, reason: reason)
            next.emit { monitor, request in monitor.request(request, willRetry: retry) }
            next.configuration.logger?.log(
                NetworkLogEntry.retry(
                    id: next.requestId, method: attempt.method.rawValue, attempt: number + 1,
                    of: policy.maximumAttempts, delay: delay, reason: reason))
            guard (try? await next.clock.pause(for: delay)) != nil else { throw BaseServerError.cancelled }
            number += 1
        }
    }
}
