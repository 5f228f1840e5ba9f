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
