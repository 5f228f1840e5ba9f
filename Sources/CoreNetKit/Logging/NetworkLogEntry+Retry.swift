//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
extension NetworkLogEntry {
    /// The entry of a retry about to wait `delay` before attempt `attempt` of `total`, because of `reason`.
    public static func retry(id: String, method: String, attempt: Int, of total: Int, delay: Duration, reason: String)
        -> NetworkLogEntry
    {
        NetworkLogEntry(
            kind: .retry, requestId: id, method: method, url: "", statusCode: nil, duration: delay, bytes: nil,
            headers: [], body: nil, error: reason, curl: nil, attempt: attempt, attemptCount: total)
    }
}
