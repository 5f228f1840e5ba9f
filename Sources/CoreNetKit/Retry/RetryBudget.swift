//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
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
