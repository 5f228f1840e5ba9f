//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

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
