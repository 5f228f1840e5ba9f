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
    /// The URL this request is sent to: the base URL with its path, the relative URL with its query, then the query
    /// items its parameters add (`.query`, or any parameters of a method that sends them in the query), including a
    /// preparator's once prepared. The transport, cache key, logs, cURL line, monitors, spans and errors all read it;
    /// reports redact it (``reportedURL(encoder:)``). Throws ``BaseServerError`` `invalidRequest` if it can't be built.
    func url(encoder: JSONEncoder) throws -> URL {
        try RequestEncoder.url(of: self, encoder: encoder)
    }

    /// ``url(encoder:)`` as every report shows it: redacted by ``LogRedactor/redact(url:)``. A
    /// request whose URL cannot be built is shown as its base and relative URL, redacted too.
    func reportedURL(encoder: JSONEncoder) -> String {
        if let url = try? url(encoder: encoder) { return LogRedactor.redact(url: url) }
        return LogRedactor.redact(urlText: baseUrl.absoluteString + relativeUrl)
    }
}
