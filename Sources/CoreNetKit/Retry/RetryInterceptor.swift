//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The retry stage: it sends a request through the rest of the chain again when the request's
/// RetryPolicy (or the configuration's) says so, waiting between attempts on the
/// configuration's clock.
///
/// Every attempt goes through every later stage again: the cache is read again, the access
/// token stage adds the current token (and refreshes after a `401` as usual), interceptors
/// appended to the configuration run again, and the body is encoded and sent from its start
/// (a streamed file body is opened anew). The attempt number is in ServerRequest/attempt.
/// Cancelling the request during a wait ends the wait at once. A refused server certificate
/// (``BaseServerError/Code-swift.struct/serverTrust``) is never retried, even when a policy lists it:
/// the next attempt would meet the same certificate. A request whose 2xx response
/// body already began to stream to its reader (the OpenAPI client transport) is not sent again:
/// its answer, or its failure, is final.
///
/// It is the stage of NetworkConfiguration/retryPolicy: setting that replaces it in the list.
public struct RetryInterceptor: Interceptor, BuiltInStage {
    /// The policy of requests that bring none (ServerRequest/retryPolicy); `nil` retries only
    /// those that do.
    public var policy: RetryPolicy?

    /// Creates the stage.
    public init(policy: RetryPolicy? = nil) { self.policy = policy }

    var isOff: Bool { false }

    public func intercept(_ request: consuming ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        guard let policy = request.retryPolicy ?? policy, policy.maximumAttempts > 1,
            policy.mayRetry(request)
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
            if next.isMonitored {
                let retry = MonitoredRetry(
                    attempt: number + 1, maximumAttempts: policy.maximumAttempts, delay: delay, reason: reason)
                next.emit { monitor, request in monitor.request(request, willRetry: retry) }
            }
            next.configuration.logger?.log(
                NetworkLogEntry.retry(
                    id: next.requestId, method: attempt.method.rawValue, attempt: number + 1,
                    of: policy.maximumAttempts, delay: delay, reason: reason))
            do {
                try await next.clock.pause(for: delay)
            } catch {
                throw BaseServerError.cancelled
            }
            number += 1
        }
    }
}
