//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A ``SharedTokenStore`` in a file, for processes on one host sharing one account (an app and its extensions,
/// workers).
///
/// The tokens are JSON in an owner-only (`0600`) file, replaced atomically (temporary file renamed over it), so a
/// reader never sees half a write. The refresh lock is an advisory `flock` on `<file>.lock` with a lease
/// (``SharedTokenStore/lease``); `<file>.lock-guard` is a second, briefly held lock.
///
/// ```swift
/// let store = FileTokenStore(url: supportDirectory.appendingPathComponent("tokens.json"))
/// AccessSafeRequestManager.shared.configure(store: store, refresher: APIRefresher())
/// ```
///
/// For an app and its extensions, put the file in the app group's container
/// (`FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`). Thread-safe; any number of objects in
/// any number of processes may share the file.
public final class FileTokenStore: SharedTokenStore {
    /// The file that holds the tokens.
    public let url: URL
    public let lease: Duration
    private let lock: FileLeaseLock

    /// Creates a store for the tokens in the file `url`, created on the first write (its folder must exist).
    ///
    /// `lease`: the longest one process may hold the refresh lock; make it longer than a refresh takes.
    public init(url: URL, lease: Duration = .seconds(60)) {
        self.url = url
        self.lease = lease
        self.lock = FileLeaseLock(path: url.path + ".lock", guardPath: url.path + ".lock-guard", lease: lease)
    }

    /// The stored tokens; `nil` when there are none, the file cannot be read, or their session ended
    /// (``SharedTokens/isSessionEnded``).
    public func load() -> AuthTokens? {
        guard let entry = try? entry(), !entry.isSessionEnded else { return nil }
        return entry.tokens
    }

    /// Replaces the stored tokens (clearing ``SharedTokens/isSessionEnded``); `nil` signs out. A failed write is
    /// dropped: ``write(_:)`` throws.
    public func save(_ tokens: AuthTokens?) { try? write(SharedTokens(tokens: tokens)) }

    /// The stored entry, read now; empty when the file does not exist.
    ///
    /// Throws ``BaseServerError`` `fileAccess` when the file cannot be read or is not an entry.
    public func entry() throws -> SharedTokens {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return SharedTokens(tokens: nil)
        } catch  where access(url.path, F_OK) != 0 && errno == ENOENT {
            return SharedTokens(tokens: nil)
        } catch {
            throw BaseServerError(
                code: .fileAccess, message: "cannot read the token file \(url.path)", underlyingError: error)
        }
        do {
            return try JSONDecoder().decode(SharedTokens.self, from: data)
        } catch {
            throw BaseServerError(code: .fileAccess, message: "the token file \(url.path) is not a token entry")
        }
    }

    /// Writes `entry` atomically, owner-only, without taking the refresh lock; throws ``BaseServerError`` `fileAccess`.
    public func write(_ entry: SharedTokens) throws {
        let data = try JSONEncoder().encode(entry)
        let temporary = url.path + ".tmp-\(getpid())-\(UUID().uuidString)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileLeaseLock.failure("cannot create \(temporary)", errno: errno) }
        var failure = data.withUnsafeBytes { writeAll($0, to: fd, at: 0) }
        let synced = failure == 0 && fchmod(fd, 0o600) == 0 && fsync(fd) == 0
        if failure == 0 && !synced { failure = errno }
        close(fd)
        guard synced, rename(temporary, url.path) == 0 else {
            if failure == 0 { failure = errno }
            unlink(temporary)
            throw FileLeaseLock.failure("cannot write the token file \(url.path)", errno: failure)
        }
    }

    public func withRefreshLock<Result: Sendable>(
        _ update: (SharedTokens) async throws -> (write: SharedTokens?, result: Result)
    ) async throws -> Result {
        let fd = try await lock.acquire()
        defer { close(fd) }
        let (write, result) = try await update(try entry())
        if let write { try lock.whileCurrent(fd) { try self.write(write) } }
        return result
    }
}
