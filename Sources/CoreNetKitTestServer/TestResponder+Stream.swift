//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Hummingbird

/// Streamed uploads held open: `POST /stream/upload/:gate`.
extension TestResponder {
    /// Reads and hashes the whole body, then waits at `gate` before answering
    /// `{"size": n, "sha256": "…"}`: the request is still in flight, its body sent, until the
    /// test releases the gate.
    func heldUpload(_ gate: String, request: Request) async throws -> Response {
        var hasher = Crypto.SHA256()
        var size = 0
        for try await chunk in request.body {
            size += chunk.readableBytes
            chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }
        await core.passGate(gate)
        return Self.json(.object([("size", .int(size)), ("sha256", .string(hasher.finalize().hex))]))
    }
}
