//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The scratch files of one request (streamed bodies, partial downloads): created here, removed
/// together when the request no longer needs them.
///
/// After ``close()`` every file is gone and ``create(in:name:ownerOnly:)`` refuses, so a request that is
/// cancelled while it encodes leaves nothing behind.
final class TemporaryFiles: Sendable {
    private struct State {
        var files: Set<URL> = []
        var closed = false
    }
    private let state = Locked(State())

    /// Creates an empty file called `name` in `directory` and tracks it; `ownerOnly` makes it
    /// readable by its owner only (for bodies), else it gets the default permissions.
    ///
    /// The file is created under the lock (one short system call), so a concurrent ``close()``
    /// either comes first and this throws, or comes after and removes the file.
    ///
    /// - Throws: `CancellationError` after ``close()``; ``BaseServerError`` with code
    ///   ``BaseServerError/Code-swift.struct/fileAccess`` when the file cannot be created.
    func create(in directory: URL, name: String, ownerOnly: Bool = true) throws -> URL {
        let url = directory.appendingPathComponent(name, isDirectory: false)
        let created: Bool? = state.withLock { state in
            guard !state.closed else { return nil }
            let attributes: [FileAttributeKey: Any]? = ownerOnly ? [.posixPermissions: 0o600] : nil
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: attributes) else {
                return false
            }
            state.files.insert(url)
            return true
        }
        switch created {
        case nil: throw CancellationError()
        case false?:
            throw BaseServerError(code: .fileAccess, message: "could not create a temporary file in \(directory.path)")
        case true?: return url
        }
    }

    /// Stops tracking `url` (it was moved elsewhere or removed by its user).
    func forget(_ url: URL) {
        state.withLock { _ = $0.files.remove(url) }
    }

    /// Removes `url` and stops tracking it.
    func remove(_ url: URL) {
        forget(url)
        try? FileManager.default.removeItem(at: url)
    }

    /// Removes every tracked file; later ones can still be created.
    func removeAll() {
        let files = state.withLock { state in
            defer { state.files = [] }
            return state.files
        }
        for file in files { try? FileManager.default.removeItem(at: file) }
    }

    /// Removes every tracked file and refuses new ones.
    func close() {
        state.withLock { $0.closed = true }
        removeAll()
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { state.withLock { $0.closed } }
}
