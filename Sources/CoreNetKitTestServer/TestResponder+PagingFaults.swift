//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// `/paged-items`: the `/items` list with faults for paginator tests.
extension TestResponder {
    /// `GET /paged-items?offset=&limit=&count=&total=` answers as `/items`, plus:
    /// - `gate=<name>&holdAt=<offset>`: a request for that offset (any offset without `holdAt`)
    ///   waits at gate `name` first (see `TestServer.release(_:)`);
    /// - `failAt=<offset>&failKey=<key>`: the first request for that offset under `key` answers
    ///   `503 {"code":"UNAVAILABLE",...}`; later ones succeed.
    ///
    /// The async part is kept to the gate alone: with the checks inline, swift 6.3.1's optimizer
    /// crashed (signal 11 in LLVM's coroutine passes) compiling this target in release mode.
    func pagedItems(query: QueryItems) async throws -> Response {
        if let gate = try Self.pagedItemsGate(query) {
            await self.core.passGate(gate)
        }
        return try self.pagedItemsAfterGate(query)
    }

    /// The gate a `/paged-items` request waits at, if any.
    private static func pagedItemsGate(_ query: QueryItems) throws -> String? {
        let offset = try query.int("offset", default: 0, in: 0...Int(Int32.max))
        guard let gate = query["gate"] else { return nil }
        let holdAt = try query.int("holdAt", default: offset, in: 0...Int(Int32.max))
        return holdAt == offset ? gate : nil
    }

    /// The page, or the one-time failure, once past the gate.
    private func pagedItemsAfterGate(_ query: QueryItems) throws -> Response {
        let offset = try query.int("offset", default: 0, in: 0...Int(Int32.max))
        if let failAt = query["failAt"], Int(failAt) == offset {
            let key = "paged-items:\(query["failKey"] ?? ""):\(offset)"
            if self.core.nextCounterValue(key) == 1 {
                return Self.error(
                    .serviceUnavailable, code: "UNAVAILABLE", message: "Page at offset \(offset) failed once")
            }
        }
        return try Self.items(query: query)
    }
}
