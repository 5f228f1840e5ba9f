//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What is needed to go on with a failed or cancelled download: the bytes that arrived (in a partial file) and the
/// validator that proves the server still has the same file.
///
/// Produced only when asked for (``ServerRequest/keepsPartialDownload``), on the error
/// (``BaseServerError/resumeData``) or from ``ActiveRequestContext/cancel(producingResumeData:)``. It is `Codable`
/// to keep across launches; the partial file stays until resumed or ``removePartialFile()`` is called.
///
/// ```swift
/// var request = ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/videos/42.mp4",
///                             downloadDestination: destination, keepsPartialDownload: true)
/// // after a failure: resume where it stopped
/// request.resumeData = (error as? BaseServerError)?.resumeData
/// ```
///
/// A resumed request sends `Range: bytes=N-` with `If-Range`; a `206` from byte N is appended, and progress starts
/// at N. A `200`, a partial file gone or shorter than ``bytesReceived``, or no strong validator starts over.
public struct DownloadResumeData: Codable, Sendable, Hashable {
    /// The URL the bytes came from, for your records: the resumed request uses its own URL, so a re-signed one works.
    public var url: URL
    /// Where the finished file goes.
    public var destination: URL
    /// The file holding the bytes received so far.
    public var partialFileURL: URL
    /// The size of the partial file.
    public var bytesReceived: Int64
    /// The size of the whole file, when the server said it.
    public var expectedLength: Int64?
    /// The response's strong `ETag`, if any.
    public var entityTag: String?
    /// The response's `Last-Modified`, if any.
    public var lastModified: String?

    /// Creates resume data; the pipeline makes it, this is for tests and custom storage.
    public init(
        url: URL, destination: URL, partialFileURL: URL, bytesReceived: Int64, expectedLength: Int64? = nil,
        entityTag: String? = nil, lastModified: String? = nil
    ) {
        self.url = url
        self.destination = destination
        self.partialFileURL = partialFileURL
        self.bytesReceived = bytesReceived
        self.expectedLength = expectedLength
        self.entityTag = entityTag
        self.lastModified = lastModified
    }

    /// The `If-Range` value: the strong ETag, else Last-Modified; `nil` (start over) when neither. A weak ETag
    /// cannot be used (RFC 9110 §13.1.5).
    public var ifRangeValidator: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }

    /// Removes the partial file, for a download you give up.
    public func removePartialFile() {
        try? FileManager.default.removeItem(at: partialFileURL)
    }
}
