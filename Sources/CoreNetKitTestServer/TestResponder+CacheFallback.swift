//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// Offline-fallback helper: `/cache/outage/:key`.
extension TestResponder {
    /// `GET /cache/outage/:key`: `{"key":…,"value":n}` with a value that grows on every answered
    /// hit; `503 {"code":"OUTAGE",…}` instead when the request carries `X-Outage: 1`. The header
    /// is not part of the URL, so both answers belong to one cache entry.
    func outage(_ key: String, request: Request) -> Response {
        if request.headers[Self.outageHeader] != nil {
            return Self.error(.serviceUnavailable, code: "OUTAGE", message: "The service is down for maintenance")
        }
        let value = self.core.nextCounterValue("outage/" + key)
        return Self.json(.object([("key", .string(key)), ("value", .int(value))]))
    }

    private static let outageHeader = HTTPFields.Element.Name("X-Outage")!
}
