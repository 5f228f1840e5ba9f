//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

extension DispatchQueue {
    /// Runs `work` on this queue and returns its result, or throws its error, to the awaiting Task (the cache adapters'
    /// own queues; blocking work kept off the cooperative pool).
    func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
            self.async { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }
}
