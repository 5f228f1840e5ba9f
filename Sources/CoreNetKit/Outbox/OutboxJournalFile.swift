//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The journal file of a ``FileOutboxStore``: appends that are on disk before they return
/// (`fsync`), the cut of a damaged tail, and compaction by atomic replacement. Owner-only
/// permissions (`0600`). Not thread-safe: its store calls it from one queue.
final class OutboxJournalFile {
    let path: String
    private var fd: Int32
    /// The file's length: where the next record goes.
    private(set) var length: Int

    /// Opens (creating it if missing) the journal at `path` and reads it; cuts a damaged tail off.
    init(path: String) throws {
        self.path = path
        let created = access(path, F_OK) != 0
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("cannot open the outbox journal \(path)", errno: errno) }
        length = 0
        if created { try Self.syncFolder(of: path) }
    }

    deinit { close(fd) }

    /// Reads the whole file, cuts an unreadable tail off, and writes the header into an empty file.
    func load() throws -> OutboxJournal.Contents {
        let bytes = try readAll()
        let contents = try OutboxJournal.read(bytes, path: path)
        length = contents.validLength
        if contents.validLength < bytes.count {
            guard ftruncate(fd, off_t(contents.validLength)) == 0, fsync(fd) == 0 else {
                throw Self.failure("cannot cut the damaged tail of \(path)", errno: errno)
            }
        }
        if length == 0 { try append(OutboxJournal.header) }
        return contents
    }

    /// Writes `bytes` at the end and, when `sync` (the default), waits until they are on disk.
    /// A failed append is cut off again, so the file ends with its last whole record.
    func append(_ bytes: [UInt8], sync: Bool = true) throws {
        guard !bytes.isEmpty else { return }
        let start = length
        let failure = bytes.withUnsafeBytes { writeAll($0, to: fd, at: start) }
        guard failure == 0, !sync || fsync(fd) == 0 else {
            let failure = failure == 0 ? errno : failure
            _ = ftruncate(fd, off_t(start))
            throw Self.failure("cannot write the outbox journal \(path)", errno: failure)
        }
        length = start + bytes.count
    }

    /// Replaces the file with one that holds `records` only: written beside it, synced, renamed
    /// over it. A crash at any point leaves either the old file or the new one.
    func replace(with records: [OutboxJournal.Record]) throws {
        var bytes = OutboxJournal.header
        for record in records { bytes += try OutboxJournal.frame(record) }
        let temporary = path + ".compact-\(getpid())"
        let newFD = open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard newFD >= 0 else { throw Self.failure("cannot create \(temporary)", errno: errno) }
        let old = (fd, length)
        fd = newFD
        length = 0
        do {
            try append(bytes)
            guard rename(temporary, path) == 0 else { throw Self.failure("cannot replace \(path)", errno: errno) }
            try Self.syncFolder(of: path)
            close(old.0)
        } catch {
            close(newFD)
            unlink(temporary)
            (fd, length) = old
            throw error
        }
    }

    private func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.failure("cannot read the outbox journal \(path)", errno: errno)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            offset += off_t(count)
        }
    }

    /// Takes the advisory lock of the journal at `path` (`<path>.lock`) for as long as the returned
    /// descriptor is open, waiting up to `wait` while another holder has it.
    static func lock(_ path: String, waiting wait: Duration) throws -> Int32 {
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot open \(lockPath)", errno: errno) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            if reason == EINTR { continue }
            guard reason == EWOULDBLOCK, clock.now < deadline else {
                close(fd)
                guard reason == EWOULDBLOCK else { throw failure("cannot lock \(lockPath)", errno: reason) }
                throw BaseServerError(
                    code: .fileAccess, message: "the outbox journal \(path) is open in another process")
            }
            usleep(5_000)  // a lock without a timeout: look again every 5 ms until the deadline
        }
        return fd
    }

    /// Syncs the folder of `path`, so a file created or renamed there survives a crash.
    private static func syncFolder(of path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot open the folder of \(path)", errno: errno) }
        defer { close(fd) }
        _ = fsync(fd)  // not every file system syncs a folder; the rename is atomic all the same
    }

    static func failure(_ what: String, errno code: Int32) -> BaseServerError {
        BaseServerError(code: .fileAccess, message: "\(what): \(String(cString: strerror(code)))")
    }
}
