//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// A ``DiskCacheAdapter``'s memory tier and file sizes, each trimmed least recently used first; no file work is done
/// here.
struct DiskCacheState {
    /// Entries by name, each with a size and a use counter for LRU trimming.
    struct Tier<Value> {
        private var items: [String: (value: Value, size: Int, used: UInt64)] = [:]
        private var total = 0
        private var clock: UInt64 = 0

        func contains(_ name: String) -> Bool { items[name] != nil }

        /// The value of `name`, marked used.
        mutating func use(_ name: String) -> Value? {
            guard let value = items[name]?.value else { return nil }
            clock += 1
            items[name]?.used = clock
            return value
        }

        /// Adds `value` as the most recently used, then removes the least recently used others while the sizes exceed
        /// `capacity`; returns their names.
        @discardableResult
        mutating func add(_ value: Value, name: String, size: Int, capacity: Int) -> [String] {
            remove(name)
            clock += 1
            items[name] = (value, size, clock)
            total += size
            var evicted: [String] = []
            while total > capacity, let oldest = items.min(by: { $0.value.used < $1.value.used }), oldest.key != name {
                remove(oldest.key)
                evicted.append(oldest.key)
            }
            return evicted
        }

        mutating func remove(_ name: String) {
            if let item = items.removeValue(forKey: name) { total -= item.size }
        }
    }

    var memory = Tier<CachedResponse>()
    var files = Tier<Void>()
    private(set) var isIndexed = false

    /// Keeps `entry` in memory (unless larger than `capacity`), trimming least recently used entries to `capacity`.
    mutating func remember(_ entry: CachedResponse, name: String, capacity: Int) {
        memory.remove(name)
        let cost = entry.body.count + entry.headers.fields.reduce(64) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        guard cost <= capacity else { return }
        memory.add(entry, name: name, size: cost, capacity: capacity)
    }

    /// Records the files an earlier run left, oldest first.
    mutating func index(_ found: [(name: String, size: Int)]) {
        for (name, size) in found where !files.contains(name) { files.add((), name: name, size: size, capacity: .max) }
        isIndexed = true
    }

    /// Forgets everything; the directory will be listed again.
    mutating func reset() { self = DiskCacheState() }
}
