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

/// The ``CacheAdapter`` contract, pinned on both shipped adapters over real directories.
@Suite(.timeLimit(.minutes(3))) struct CacheAdapterTests {
    private func key(_ index: Int) -> CacheKey {
        CacheKey(method: .get, url: URL(string: "https://api.example.com/items/\(index)?page=\(index % 7)")!)
    }

    private func entry(_ index: Int, bytes: Int = 64) -> CachedResponse {
        CachedResponse(
            statusCode: 200, headers: ["Content-Type": "application/json", "ETag": "\"e\(index)\""],
            body: Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }),
            url: URL(string: "https://api.example.com/items/\(index)"),
            storedAt: Date(timeIntervalSince1970: Double(1_700_000_000 + index)),
            variant: index.isMultiple(of: 2) ? "v\(index)" : nil)
    }

    @Test(arguments: AdapterKind.allCases)
    func savedEntryLoadsBackUnchanged(_ kind: AdapterKind) async throws {
        try await withTemporaryDirectory { directory in
            let adapter = kind.make(directory)

            await adapter.save(entry(4), for: key(4))
            let loaded = await adapter.load(key(4))

            #expect(loaded == entry(4))
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func entriesSurviveANewAdapterOverTheSameDirectory(_ kind: AdapterKind) async throws {
        try await withTemporaryDirectory { directory in
            let first = kind.make(directory)
            for index in 0..<5 { await first.save(entry(index), for: key(index)) }

            let restarted = kind.make(directory)
            var loaded: [CachedResponse?] = []
            for index in 0..<5 { loaded.append(await restarted.load(key(index))) }

            #expect(loaded == (0..<5).map { entry($0) })
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func concurrentSavesAndLoadsOfAHundredKeysKeepEveryEntryIntact(_ kind: AdapterKind) async throws {
        try await withTemporaryDirectory { directory in
            let adapter = kind.make(directory)

            let mismatches = await withTaskGroup(of: Int.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        await adapter.save(self.entry(index, bytes: 512 + index), for: self.key(index))
                        let loaded = await adapter.load(self.key(index))
                        return loaded == self.entry(index, bytes: 512 + index) ? 0 : 1
                    }
                    group.addTask {
                        _ = await adapter.load(self.key((index * 37) % 100))
                        return 0
                    }
                }
                return await group.reduce(0, +)
            }
            let restarted = kind.make(directory)
            var intactAfterRestart = 0
            for index in 0..<100 where await restarted.load(key(index)) == entry(index, bytes: 512 + index) {
                intactAfterRestart += 1
            }

            #expect(mismatches == 0)
            #expect(intactAfterRestart == 100)
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func corruptCacheFileIsAMissNotACrash(_ kind: AdapterKind) async throws {
        try await withTemporaryDirectory { directory in
            await kind.make(directory).save(entry(1), for: key(1))
            await kind.make(directory).save(entry(2), for: key(2))
            let stored = files(in: directory)
            try #require(!stored.isEmpty)
            for (index, file) in stored.enumerated() {
                let data = try Data(contentsOf: file)
                let damaged = index.isMultiple(of: 2) ? Data("not a cache entry".utf8) : data.prefix(data.count / 2)
                try damaged.write(to: file)
            }

            let restarted = kind.make(directory)
            let first = await restarted.load(key(1))
            let second = await restarted.load(key(2))

            #expect(first == nil)
            #expect(second == nil)
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func removeDropsOneEntryAndRemoveAllDropsEveryEntryAlsoOnDisk(_ kind: AdapterKind) async throws {
        try await withTemporaryDirectory { directory in
            let adapter = kind.make(directory)
            for index in 0..<3 { await adapter.save(entry(index), for: key(index)) }

            await adapter.remove(key(0))
            let afterRemove = (await adapter.load(key(0)), await adapter.load(key(1)))
            await adapter.removeAll()
            let restarted = kind.make(directory)

            #expect(afterRemove.0 == nil)
            #expect(afterRemove.1 == entry(1))
            #expect(await adapter.load(key(1)) == nil)
            #expect(await restarted.load(key(2)) == nil)
        }
    }

    @Test func diskCacheTrimsTheLeastRecentlyUsedFilesToItsCapacity() async throws {
        try await withTemporaryDirectory { directory in
            let adapter = DiskCacheAdapter(directory: directory, memoryCapacity: 0, diskCapacity: 3_000)
            for index in 0..<3 { await adapter.save(entry(index, bytes: 700), for: key(index)) }
            _ = await adapter.load(key(0))

            await adapter.save(entry(3, bytes: 700), for: key(3))

            #expect(await adapter.load(key(1)) == nil)
            #expect(await adapter.load(key(0)) == entry(0, bytes: 700))
            #expect(await adapter.load(key(3)) == entry(3, bytes: 700))
            #expect(files(in: directory).count == 3)
        }
    }

    @Test func diskCacheWithoutDiskCapacityWritesNoFiles() async throws {
        try await withTemporaryDirectory { directory in
            let adapter = DiskCacheAdapter(directory: directory, diskCapacity: 0)

            await adapter.save(entry(1), for: key(1))

            #expect(await adapter.load(key(1)) == entry(1))
            #expect(files(in: directory).isEmpty)
        }
    }
}
