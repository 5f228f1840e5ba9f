//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

extension Outbox {
    /// How an ``Outbox`` sends: how hard it tries, how many queues at once, where it delivers.
    public struct Options: Sendable {
        /// The retry stage's policy for every entry: which failures can pass (by default no
        /// connection, cannot connect, connection lost, timeout, `408`, `429`, `500`, `502`,
        /// `503`, `504`), the back-off between attempts (on the configuration's clock;
        /// `Retry-After` wins, up to ``RetryPolicy/maximumRetryAfter``), and the bound: after
        /// ``RetryPolicy/maximumAttempts`` attempts an entry whose failure could still pass goes
        /// to the failed list. The attempts are counted in the store (``OutboxEntry/attempts``),
        /// before each request goes out, by every process that sends the entry: an app that dies
        /// while it sends does not start the count over when it restarts. A send held for its
        /// credentials (see ``heldDelay``) gives its attempt back. Every entry carries an
        /// `Idempotency-Key`, so a `POST` is retried too.
        public var retryPolicy: RetryPolicy
        /// How many queues are sent at once (each queue one entry at a time); 4 by default.
        public var concurrency: Int
        /// How long an idle outbox on a shared store (``OutboxStore/isShared``) waits before it
        /// looks for entries other processes queued; 1 second by default. An outbox looks at
        /// once when it queues something itself.
        public var pollInterval: Duration
        /// How long a queue waits before its entry is tried again after the server refused the
        /// credentials and no refresh helped (the user must sign in again); 60 seconds by default.
        public var heldDelay: Duration
        /// The queue outcome handlers run on; `nil` (the default) uses the configuration's
        /// callback queue.
        public var callbackQueue: DispatchQueue?

        /// Creates options; every argument has the default described on its property.
        public init(
            retryPolicy: RetryPolicy = Options.defaultRetryPolicy, concurrency: Int = 4,
            pollInterval: Duration = .seconds(1), heldDelay: Duration = .seconds(60),
            callbackQueue: DispatchQueue? = nil
        ) {
            self.retryPolicy = retryPolicy
            self.concurrency = max(1, concurrency)
            self.pollInterval = pollInterval
            self.heldDelay = heldDelay
            self.callbackQueue = callbackQueue
        }

        /// 20 attempts, 1 second to 5 minutes apart (exponential back-off with full jitter),
        /// `Retry-After` honoured up to 1 hour; no connection counts as a failure that can pass.
        public static var defaultRetryPolicy: RetryPolicy {
            RetryPolicy(
                maximumAttempts: 20, baseDelay: .seconds(1), maximumDelay: .seconds(300),
                maximumRetryAfter: .seconds(3600),
                retryableErrors: [.noInternetConnection, .cannotConnect, .connectionLost, .timeout],
                retriesNonIdempotentRequests: true)
        }
    }
}
