//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What is needed to go on with a download that failed or was cancelled: the bytes that
/// arrived (kept in a partial file) and the validator that proves the server still has the same
/// file.
///
/// A download produces it only when it asks to (``ServerRequest/keepsPartialDownload``); it is
/// on the error the request fails with (``BaseServerError/resumeData``) and is what
/// ``ActiveRequestContext/cancel(producingResumeData:)`` hands back. It is `Codable`, so an app
/// can keep it across launches (the partial file stays where ``partialFileURL`` says until it is
/// resumed or ``removePartialFile()`` is called).
///
/// ```swift
/// var request = ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/videos/42.mp4",
///                             downloadDestination: destination, keepsPartialDownload: true)
/// // after a failure: resume where it stopped
/// request.resumeData = (error as? BaseServerError)?.resumeData
/// ```
///
/// A request resumed with it sends `Range: bytes=N-` with an `If-Range` validator. A `206
/// Partial Content` that starts at byte N is appended to the partial file; a `200` (the file
/// changed, or the server ignores ranges) starts over. Progress starts at N of the total. When
/// the partial file is gone or shorter than ``bytesReceived``, or the server gave no strong
/// validator, the download starts over.
public struct DownloadResumeData: Codable, Sendable, Hashable {
    /// The URL the bytes came from, query included (for your records: the resumed request uses
    /// its own URL, so a re-signed URL to the same file resumes too).
    public var url: URL
    /// Where the finished file goes.
    public var destination: URL
    /// The file holding the bytes received so far.
    public var partialFileURL: URL
    /// How many bytes of the file arrived (the size of the partial file).
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

    /// The `If-Range` value: the strong ETag, else Last-Modified; `nil` when the server gave
    /// neither (a weak ETag cannot be used, RFC 9110 §13.1.5), and then the download starts over.
    public var ifRangeValidator: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }

    /// Removes the partial file, for a download you give up.
    public func removePartialFile() {
        try? FileManager.default.removeItem(at: partialFileURL)
    }
}
