//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The URL of a request, decided in one place.
extension ServerRequest {
    /// The URL this request is sent to: base URL, relative URL with its query, then its parameters' query items. Every
    /// reader (transport, cache key, logs, monitors, errors) uses it. Throws `invalidRequest` if it can't be built.
    func url(encoder: JSONEncoder) throws -> URL {
        try RequestEncoder.url(of: self, encoder: encoder)
    }

    /// ``url(encoder:)`` redacted for reports; if it can't be built, the base and relative URL, redacted.
    func reportedURL(encoder: JSONEncoder) -> String {
        if let url = try? url(encoder: encoder) { return LogRedactor.redact(url: url) }
        return LogRedactor.redact(urlText: baseUrl.absoluteString + relativeUrl)
    }
}
