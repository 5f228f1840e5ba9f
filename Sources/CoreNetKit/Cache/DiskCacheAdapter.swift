//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

/// CoreNetKit's own ``CacheAdapter``: a memory tier in front of one file per entry in a directory, each bounded by a
/// capacity and trimmed least-recently-used first. The same on every platform; the one to use on Linux.
///
/// ```swift
/// let cache = DiskCacheAdapter(directory: FileManager.default.temporaryDirectory.appendingPathComponent("api"))
/// NetworkConfiguration.default.cacheAdapter = cache
/// ```
///
/// Each entry is a file named by the SHA-256 of its ``CacheKey``, written atomically; an unreadable file is a miss and
/// is deleted. A new adapter over the directory (after a restart) finds every entry. Operations run in order on the
/// adapter's serial queue, never the caller's thread. Use one adapter per directory in a process: the size limit counts
/// only what it wrote and found at its first disk access.
public final class DiskCacheAdapter: CacheAdapter {
    /// The directory of the entry files.
    public let directory: URL
    /// The most bytes of bodies kept in memory.
    public let memoryCapacity: Int
    /// The most bytes of files kept on disk; `0` keeps entries in memory only.
    public let diskCapacity: Int

    private let queue = DispatchQueue(label: "CoreNetKit.DiskCacheAdapter")
    private let state = Locked(DiskCacheState())

    /// Creates an adapter over `directory` (created when needed; `nil` is `<caches directory>/CoreNetKit`), keeping up
    /// to `memoryCapacity` bytes in memory and `diskCapacity` on disk.
    public init(directory: URL? = nil, memoryCapacity: Int = 4 * 1024 * 1024, diskCapacity: Int = 50 * 1024 * 1024) {
        self.directory = directory ?? Self.defaultDirectory()
        self.memoryCapacity = max(0, memoryCapacity)
        self.diskCapacity = max(0, diskCapacity)
    }

    public func load(_ key: CacheKey) async -> CachedResponse? { await queue.run { self.loadNow(key.digest) } }

    public func save(_ response: CachedResponse, for key: CacheKey) async {
        await queue.run { self.saveNow(response, name: key.digest) }
    }

    public func remove(_ key: CacheKey) async { await queue.run { self.removeNow(key.digest) } }

    public func removeAll() async { await queue.run { self.removeAllNow() } }

    // MARK: Work on the queue

    private func loadNow(_ name: String) -> CachedResponse? {
        if let entry = state.withLock({ $0.memory.use(name) }) { return entry }
        guard diskCapacity > 0, let data = try? Data(contentsOf: fileURL(name)) else { return nil }
        guard let entry = CacheFileFormat.decode(data) else {
            removeFile(name)
            return nil
        }
        state.withLock { state in
            state.remember(entry, name: name, capacity: memoryCapacity)
            _ = state.files.use(name)
        }
        return entry
    }

    private func saveNow(_ entry: CachedResponse, name: String) {
        state.withLock { $0.remember(entry, name: name, capacity: memoryCapacity) }
        guard diskCapacity > 0, let data = CacheFileFormat.encode(entry), data.count <= diskCapacity else {
            removeFile(name)
            return
        }
        indexDirectoryIfNeeded()
        // A cache write that fails is dropped; the memory tier still has the entry.
        guard (try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)) != nil,
            (try? data.write(to: fileURL(name), options: .atomic)) != nil
        else { return }
        let evicted = state.withLock { $0.files.add((), name: name, size: data.count, capacity: diskCapacity) }
        for name in evicted { try? FileManager.default.removeItem(at: fileURL(name)) }
    }

    private func removeNow(_ name: String) {
        state.withLock { $0.memory.remove(name) }
        removeFile(name)
    }

    private func removeAllNow() {
        state.withLock { $0.reset() }
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        for file in files where file.pathExtension == CacheFileFormat.fileExtension {
            try? FileManager.default.removeItem(at: file)
        }
    }

    private func removeFile(_ name: String) {
        try? FileManager.default.removeItem(at: fileURL(name))
        state.withLock { $0.files.remove(name) }
    }

    /// Lists the directory once, so the size limit counts an earlier run's files.
    private func indexDirectoryIfNeeded() {
        guard !state.withLock({ $0.isIndexed }) else { return }
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let files =
            (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)) ?? []
        let found: [(name: String, size: Int, date: Date)] = files.compactMap { file in
            guard file.pathExtension == CacheFileFormat.fileExtension,
                let values = try? file.resourceValues(forKeys: Set(keys))
            else { return nil }
            return (
                file.deletingPathExtension().lastPathComponent, values.fileSize ?? 0,
                values.contentModificationDate ?? .distantPast
            )
        }
        state.withLock { $0.index(found.sorted { $0.date < $1.date }.map { ($0.name, $0.size) }) }
    }

    private func fileURL(_ name: String) -> URL {
        directory.appendingPathComponent(name).appendingPathExtension(CacheFileFormat.fileExtension)
    }

    private static func defaultDirectory() -> URL {
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("CoreNetKit", isDirectory: true)
    }
}

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

/// One ``DiskCacheAdapter`` file: a magic line, a JSON header's length, the header, then the raw body. Decoding checks
/// every part and answers `nil` otherwise, so a truncated or foreign file is a miss, never a crash.
enum CacheFileFormat {
    static let fileExtension = "cnkcache"
    private static let magic = Array("CNKCACHE1\n".utf8)
    /// Headers larger than this are not ours.
    private static let maximumHeaderLength = 1 << 20

    private struct Header: Codable {
        var status: Int
        var headers: [[String]]
        var url: String?
        var storedAt: Double
        var variant: String?
        var bodyLength: Int
    }

    static func encode(_ entry: CachedResponse) -> Data? {
        let header = Header(
            status: entry.statusCode, headers: entry.headers.fields.map { [$0.name, $0.value] },
            url: entry.url?.absoluteString, storedAt: entry.storedAt.timeIntervalSince1970,
            variant: entry.variant, bodyLength: entry.body.count)
        guard let json = try? JSONEncoder().encode(header) else { return nil }
        var data = Data(magic)
        data.reserveCapacity(magic.count + 4 + json.count + entry.body.count)
        let length = UInt32(json.count)
        data.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) })
        data.append(json)
        data.append(entry.body)
        return data
    }

    static func decode(_ data: Data) -> CachedResponse? {
        let bytes = [UInt8](data.prefix(magic.count + 4))
        guard bytes.count == magic.count + 4, Array(bytes.prefix(magic.count)) == magic else { return nil }
        let headerLength = bytes.suffix(4).reduce(0) { $0 << 8 | Int($1) }
        let headerStart = data.startIndex + magic.count + 4
        guard headerLength <= maximumHeaderLength, data.endIndex - headerStart >= headerLength,
            let header = try? JSONDecoder().decode(Header.self, from: data[headerStart..<headerStart + headerLength])
        else { return nil }
        let bodyStart = headerStart + headerLength
        guard header.bodyLength == data.endIndex - bodyStart, (200..<300).contains(header.status),
            header.headers.allSatisfy({ $0.count == 2 })
        else { return nil }
        return CachedResponse(
            statusCode: header.status,
            headers: HTTPHeaders(header.headers.map { (name: $0[0], value: $0[1]) }),
            body: Data(data[bodyStart...]),
            url: header.url.flatMap(URL.init(string:)),
            storedAt: Date(timeIntervalSince1970: header.storedAt),
            variant: header.variant)
    }
}
