//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Writes a streamed body to an owner-only scratch file for URLSession, which reads bodies only from memory or a
/// file; memory stays bounded. The caller removes the file when the request has ended.
enum RequestBodySpool {
    static func write(_ body: RequestBody) async throws -> URL {
        var quiet = body
        quiet.observer = nil  // the upload's progress is what the session reports sending
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("corenetkit-body-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw BaseServerError(code: .fileAccess, message: "could not create the scratch file \(url.path)")
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            for try await chunk in quiet.chunks() {
                try Task.checkCancellation()
                try handle.write(contentsOf: chunk)
            }
            return url
        } catch {
            try? FileManager.default.removeItem(at: url)
            if error is BaseServerError || error is CancellationError { throw error }
            throw BaseServerError(code: .fileAccess, message: "could not write \(url.path)", underlyingError: error)
        }
    }
}
