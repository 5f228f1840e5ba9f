//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The model of a request whose body was streamed to a file: where it is and what it is.
///
/// Set ``ServerRequest/downloadDestination`` and use `DownloadedFile` (or `URL`) as the model;
/// the default mapping fills it in:
///
/// ```swift
/// // In createAsyncServerRequest() of a BaseServerRequest<DownloadedFile>:
/// ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/reports/2025.pdf", downloadDestination: destination)
///
/// DownloadReportRequest(destination: url).perform().onSuccess { file in open(file.url) }
/// ```
///
/// The body never sits in memory: it is written to a partial file next to the destination and moved into place
/// (replacing any file there, creating missing directories) only when it arrived whole with a 2xx status. On failure
/// or cancellation the partial file is removed and the destination left as it was, unless
/// ``ServerRequest/keepsPartialDownload`` is set (then see ``DownloadResumeData``). A non-2xx body is read into memory
/// for the validators and error mappers, never written to the destination. If the request fails after the move (a
/// validator or the mapping rejects it) or is cancelled before its terminal event, the file is removed.
public struct DownloadedFile: Sendable, Hashable {
    /// Where the body is: the request's ``ServerRequest/downloadDestination``.
    public let url: URL
    /// The body's size in bytes.
    public let size: Int64
    /// The response's `Content-Type`, if any.
    public let contentType: String?
    /// The HTTP status code.
    public let statusCode: Int

    /// Creates a description of a downloaded file.
    public init(url: URL, size: Int64, contentType: String?, statusCode: Int) {
        self.url = url
        self.size = size
        self.contentType = contentType
        self.statusCode = statusCode
    }

    init(_ url: URL, response: ServerResponse) throws {
        guard let size = RequestTransfer.size(of: url) else {
            throw BaseServerError(code: .fileAccess, message: "the downloaded file \(url.path) is gone")
        }
        self.init(url: url, size: size, contentType: response.headers["Content-Type"], statusCode: response.statusCode)
    }
}
