//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// A ``DiskCacheAdapter``'s memory tier and file sizes, with use counters for LRU trimming; no file work is done here.
struct DiskCacheState {
    private struct MemoryItem {
        var entry: CachedResponse
        var cost: Int
        var used: UInt64
    }
    private struct FileItem {
        var size: Int
        var used: UInt64
    }

    private var memory: [String: MemoryItem] = [:]
    private var memoryCost = 0
    private var files: [String: FileItem] = [:]
    private var diskSize = 0
    private var clock: UInt64 = 0
    /// Whether the directory was listed (see `index`).
    private(set) var isIndexed = false

    private mutating func tick() -> UInt64 {
        clock += 1
        return clock
    }

    /// The entry in memory, marked used.
    mutating func memoryHit(_ name: String) -> CachedResponse? {
        guard memory[name] != nil else { return nil }
        memory[name]!.used = tick()
        return memory[name]!.entry
    }

    /// Keeps `entry` in memory (unless larger than `capacity`), trimming least recently used entries to `capacity`.
    mutating func remember(_ entry: CachedResponse, name: String, capacity: Int) {
        forget(name)
        let cost = entry.body.count + entry.headers.fields.reduce(64) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        guard cost <= capacity else { return }
        memory[name] = MemoryItem(entry: entry, cost: cost, used: tick())
        memoryCost += cost
        while memoryCost > capacity, let oldest = memory.min(by: { $0.value.used < $1.value.used }) {
            memoryCost -= oldest.value.cost
            memory[oldest.key] = nil
        }
    }

    mutating func forget(_ name: String) {
        if let item = memory.removeValue(forKey: name) { memoryCost -= item.cost }
    }

    /// Records the files an earlier run left, oldest first.
    mutating func index(_ found: [(name: String, size: Int)]) {
        for (name, size) in found where files[name] == nil {
            files[name] = FileItem(size: size, used: tick())
            diskSize += size
        }
        isIndexed = true
    }

    /// Records a written file; returns the files to delete to get back under `capacity`.
    mutating func recordFile(_ name: String, size: Int, capacity: Int) -> [String] {
        forgetFile(name)
        files[name] = FileItem(size: size, used: tick())
        diskSize += size
        var evicted: [String] = []
        while diskSize > capacity, let oldest = files.min(by: { $0.value.used < $1.value.used }), oldest.key != name {
            diskSize -= oldest.value.size
            files[oldest.key] = nil
            evicted.append(oldest.key)
        }
        return evicted
    }

    mutating func touchFile(_ name: String) {
        if files[name] != nil { files[name]!.used = tick() }
    }

    mutating func forgetFile(_ name: String) {
        if let item = files.removeValue(forKey: name) { diskSize -= item.size }
    }

    /// Forgets everything; the directory will be listed again.
    mutating func reset() {
        self = DiskCacheState()
    }
}
