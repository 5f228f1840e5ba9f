//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The status and headers of a response, reported before its body.
struct ResponseHead: Sendable {
    var status: Int
    var headers: HTTPHeaders

    /// `Content-Range: bytes first-last/total` (total may be `*`).
    var contentRange: (first: Int64, total: Int64?)? {
        guard let value = headers["Content-Range"]?.trimmingHTTPWhitespace,
            value.lowercased().hasPrefix("bytes ")
        else { return nil }
        let spec = value.dropFirst("bytes ".count)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let dash = parts[0].firstIndex(of: "-"),
            let first = Int64(parts[0][..<dash].trimmingHTTPWhitespace)
        else { return nil }
        return (first, Int64(parts[1].trimmingHTTPWhitespace))
    }

    /// A content coding other than `identity`: the bytes are not the file's, so ranges cannot be appended.
    var isEncoded: Bool {
        guard let coding = headers["Content-Encoding"]?.trimmingHTTPWhitespace else { return false }
        return !coding.isEmpty && coding.lowercased() != "identity"
    }
}

/// What a download's response means for its file.
enum ResumeOutcome {
    /// Not a 2xx: the body stayed in memory for the validators.
    case notADownload
    /// The resumed range cannot be used (416, or a 206 from another byte): send again without.
    case startOver
    /// A 206 from the requested byte: append it to the kept bytes.
    case appended
    /// The whole file (a 200, or a range the caller asked for): it replaces the kept bytes.
    case whole
}

extension RequestTransfer {
    /// Sets up one download attempt: adopts the request's resume data the first time and asks for the rest of the
    /// kept bytes (`Range`, `If-Range`).
    func prepareDownload(_ request: inout TransportRequest, for serverRequest: ServerRequest) {
        let keeps = serverRequest.keepsPartialDownload || serverRequest.hasResumeData
        let adopt = state.withLock { $0.resume.startAttempt(keeping: keeps, resumeData: serverRequest.resumeData) }
        if let adopt, let destination = Self.destination(of: serverRequest) {
            self.adopt(adopt, url: request.url, destination: destination)
        }
        if let resume = state.withLock({ $0.resume.rangeToAsk() }) {
            request.setValue("bytes=\(resume.offset)-", forHTTPHeaderField: "Range")
            request.setValue(resume.validator, forHTTPHeaderField: "If-Range")
        }
        // Ranges count bytes of the representation as sent: a compressed body would not be the file's bytes.
        if keeps, request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
    }

    /// Takes `data`'s partial file as the kept bytes, cut to the length it names; one that is gone, shorter, or
    /// without a validator is removed instead.
    private func adopt(_ data: DownloadResumeData, url: URL, destination: URL) {
        let file = data.partialFileURL
        guard file.standardizedFileURL != destination.standardizedFileURL else { return }
        let size = Self.size(of: file)
        guard data.bytesReceived > 0, let size, size >= data.bytesReceived, data.ifRangeValidator != nil,
            (try? Self.truncate(file, to: data.bytesReceived)) != nil
        else {
            try? FileManager.default.removeItem(at: file)
            return
        }
        var partial = data
        partial.url = url
        partial.destination = destination
        state.withLock { $0.resume.partial = partial }
    }

    /// A `206` that continues the kept bytes moves the progress to where they end.
    func receivedHead(status: Int, headers: HTTPHeaders) {
        let head = ResponseHead(status: status, headers: headers)
        if let remaining = state.withLock({ $0.resume.received(head) }) {
            report(.download, completed: 0, expected: remaining)
        }
    }

    func dropPartial() {
        state.withLock { $0.resume.partial.take() }?.removePartialFile()
    }

    /// Appends the range that arrived in `scratch` to the kept bytes and checks the announced total.
    func append(_ scratch: URL) throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        guard let partial = state.withLock({ $0.resume.partial }) else {
            throw BaseServerError(code: .fileAccess, message: "the partial download is gone")
        }
        let size: Int64
        do {
            size = try Self.append(scratch, to: partial.partialFileURL)
        } catch {
            dropPartial()
            throw BaseServerError(
                code: .fileAccess, message: "could not append to \(partial.partialFileURL.path)", underlyingError: error
            )
        }
        if let total = state.withLock({ $0.resume.head?.contentRange?.total }), size != total {
            dropPartial()
            throw BaseServerError(
                code: .connectionLost, statusCode: 206,
                message: "the resumed download has \(size) bytes; the server announced \(total)")
        }
        state.withLock { $0.resume.partial?.bytesReceived = size }
    }

    func placePartial(at destination: URL) throws {
        guard let partial = state.withLock({ $0.resume.partial }) else {
            throw BaseServerError(code: .fileAccess, message: "the partial download is gone")
        }
        try move(partial.partialFileURL, to: destination)
    }

    /// After a failed attempt that keeps its bytes, `scratch` joins the kept bytes (a continuing `206`) or replaces
    /// them (a `2xx` from the start); anything else is removed.
    func keepAfterFailure(_ scratch: URL, url: URL, destination: URL) {
        let (keeps, head, requested) = state.withLock {
            ($0.resume.keepsPartial, $0.resume.head, $0.resume.requestedOffset)
        }
        guard keeps, let head, (200..<300).contains(head.status), !head.isEncoded,
            let received = Self.size(of: scratch), received > 0
        else {
            try? FileManager.default.removeItem(at: scratch)
            return
        }
        if head.status == 206 {
            guard requested > 0, head.contentRange?.first == requested, state.withLock({ $0.resume.partial }) != nil
            else {
                try? FileManager.default.removeItem(at: scratch)
                return
            }
            try? append(scratch)
            return
        }
        dropPartial()
        let partial = DownloadResumeData(
            url: url, destination: destination, partialFileURL: scratch, bytesReceived: received,
            expectedLength: head.headers["Content-Length"].flatMap { Int64($0) }, entityTag: head.headers["ETag"],
            lastModified: head.headers["Last-Modified"])
        state.withLock { $0.resume.partial = partial }
    }

    // MARK: Files

    static func size(of file: URL) -> Int64? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes?[.size] as? NSNumber)?.int64Value
    }

    private static func truncate(_ file: URL, to length: Int64) throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(length))
    }

    /// Appends `source` to `file` in 1 MiB pieces and returns the new size of `file`.
    private static func append(_ source: URL, to file: URL) throws -> Int64 {
        let output = try FileHandle(forWritingTo: file)
        defer { try? output.close() }
        var size = Int64(try output.seekToEnd())
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
            size += Int64(chunk.count)
        }
        return size
    }
}

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
