//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

extension DispatchQueue {
    /// Runs `work` on this queue and returns its result to the awaiting Task (the cache adapters' own queues).
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in self.async { continuation.resume(returning: work()) } }
    }

    /// Runs `work` on this queue and returns its result, or throws its error, to the awaiting Task (blocking work kept
    /// off the cooperative pool).
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            self.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
