//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One request's scratch files (streamed bodies, partial downloads), removed together. After ``close()`` every
/// file is gone and ``create(in:name:ownerOnly:)`` refuses, so a request cancelled while encoding leaves nothing.
final class TemporaryFiles: Sendable {
    private struct State {
        var files: Set<URL> = []
        var closed = false
    }
    private let state = Locked(State())

    /// Creates and tracks an empty file; `ownerOnly` (for bodies) makes it `0600`. Throws `CancellationError` after
    /// ``close()``, `fileAccess` on failure. Created under the lock so a concurrent ``close()`` comes either first
    /// (this throws) or after (it removes the file).
    func create(in directory: URL, name: String, ownerOnly: Bool = true) throws -> URL {
        let url = directory.appendingPathComponent(name, isDirectory: false)
        try state.withLock { state in
            guard !state.closed else { throw CancellationError() }
            let attributes: [FileAttributeKey: Any]? = ownerOnly ? [.posixPermissions: 0o600] : nil
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: attributes) else {
                throw BaseServerError(
                    code: .fileAccess, message: "could not create a temporary file in \(directory.path)")
            }
            state.files.insert(url)
        }
        return url
    }

    /// Stops tracking `url` (it was moved elsewhere or removed by its user).
    func forget(_ url: URL) {
        state.withLock { _ = $0.files.remove(url) }
    }

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

    var isClosed: Bool { state.withLock { $0.closed } }
}
