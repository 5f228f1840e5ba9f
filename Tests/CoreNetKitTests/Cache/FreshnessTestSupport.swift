//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

/// A cache adapter that tells when something was saved: for the revalidation that
/// `stale-while-revalidate` starts in the background, which nobody else waits for.
final class SaveSignalingAdapter: CacheAdapter {
    private let base: any CacheAdapter
    private let stream: AsyncStream<CachedResponse>
    private let continuation: AsyncStream<CachedResponse>.Continuation

    init(_ base: any CacheAdapter) {
        self.base = base
        (stream, continuation) = AsyncStream<CachedResponse>.makeStream()
    }

    func load(_ key: CacheKey) async -> CachedResponse? { await base.load(key) }
    func remove(_ key: CacheKey) async { await base.remove(key) }
    func removeAll() async { await base.removeAll() }

    func save(_ response: CachedResponse, for key: CacheKey) async {
        await base.save(response, for: key)
        continuation.yield(response)
    }

    /// Waits until an entry whose body decodes to a ``Counter`` with `value` has been saved.
    func waitForSavedCounter(_ value: Int) async throws {
        let stream = self.stream
        try await withTimeout(30, "an entry with value \(value) to be saved") {
            for await entry in stream where (try? JSONDecoder().decode(Counter.self, from: entry.body))?.value == value
            {
                return
            }
        }
    }
}

/// A configuration that caches through `adapter` and reads the time from `clock`.
func freshnessConfiguration(
    _ adapter: any CacheAdapter, clock: ManualClock, logger: (any NetworkLogger)? = nil
) -> NetworkConfiguration {
    testConfiguration {
        $0.cacheAdapter = adapter
        $0.clock = clock
        $0.logger = logger
    }
}

/// A manual clock set against the test server's `Date` header, which is always the server's real
/// time and does not move when the test advances the clock.
///
/// By default it starts 1,000 s behind the server, so a response never looks older than the time
/// the test advanced since it was stored or revalidated (as long as the test advances less than
/// that); `ahead:` puts the client's clock ahead of the server's instead.
func wallClock(ahead seconds: Double = -1000) -> ManualClock {
    ManualClock(startDate: Date().addingTimeInterval(seconds))
}
