//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A response as received; `body` is empty when it went to a file or a streaming reader.
struct ReceivedResponse: Sendable {
    var statusCode: Int
    var headers: HTTPHeaders
    var url: URL?
    var body: Data
    /// The bytes of the body that arrived, wherever they went.
    var bytes: Int64
    /// The downloaded file, when the body was placed at the request's destination.
    var file: URL?
    /// The first bytes of a streamed body, when a monitor records them (``BodyReader/keepsPrefix``).
    var streamedPrefix = Data()
    /// When the head arrived, from the handover to the transport; `nil` when not measured.
    var headAt: Duration?
    var httpVersion: String?
}

/// Pulls one response body into memory, a file, or a streaming reader, reporting download progress. Deadline and
/// idle timeout are the exchange's (``ExchangeDriver``).
struct BodyReader: Sendable {
    let memoryLimit: Int
    /// The most bytes written to a file; `nil` for no limit.
    let fileLimit: Int64?
    /// Asked at each piece, since a context may start watching while the body arrives; `nil` when nobody can watch.
    let progressWatch: ProgressWatch?
    /// Hears the status when a body starts going to a streaming reader (for the monitors).
    var streamStarted: (@Sendable (Int) -> Void)? = nil
    /// How many bytes of a streamed body to keep for a monitor that records exchanges.
    var keepsPrefix = 0

    /// Throws `responseTooLarge` past ``memoryLimit``, or the transport's error.
    func collect(_ response: TransportResponse) async throws -> ReceivedResponse {
        let expected = response.expectedLength
        var data = Data()
        var first = true
        for try await chunk in response.body {
            guard data.count + chunk.count <= memoryLimit else {
                throw BaseServerError.responseTooLarge(limit: Int64(memoryLimit), statusCode: response.statusCode)
            }
            if first, chunk.startIndex == 0, expected == nil || expected == Int64(chunk.count) {
                // Perhaps the whole body: kept as the transport gave it, not copied.
                data = chunk
            } else {
                if data.isEmpty, let expected, expected > 0 {
                    // A length the server announces may be a lie: reserve no more than a few MiB.
                    data.reserveCapacity(Int(min(expected, Int64(min(memoryLimit, 4 << 20)))))
                }
                data.append(chunk)
            }
            first = false
            arrived(total: Int64(data.count), expected: expected)
        }
        return ReceivedResponse(
            statusCode: response.statusCode, headers: response.headers, url: response.url, body: data,
            bytes: Int64(data.count), httpVersion: response.httpVersion)
    }

    /// `file` exists and is empty. Throws `responseTooLarge` past ``fileLimit`` (counting the `offset` bytes already
    /// kept), `fileAccess`, or the transport's error.
    func write(_ response: TransportResponse, to file: URL, offset: Int64 = 0) async throws -> ReceivedResponse {
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: file)
        } catch {
            throw BaseServerError(code: .fileAccess, message: "could not write \(file.path)", underlyingError: error)
        }
        defer { try? handle.close() }
        let expected = response.expectedLength
        var written: Int64 = 0
        for try await chunk in response.body {
            if let fileLimit, offset + written + Int64(chunk.count) > fileLimit {
                throw BaseServerError.responseTooLarge(
                    limit: fileLimit, setting: "maximumDownloadSize", statusCode: response.statusCode)
            }
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                throw BaseServerError(
                    code: .fileAccess, message: "could not write \(file.path)", underlyingError: error)
            }
            written += Int64(chunk.count)
            arrived(total: written, expected: expected)
        }
        return ReceivedResponse(
            statusCode: response.statusCode, headers: response.headers, url: response.url, body: Data(),
            bytes: written, httpVersion: response.httpVersion)
    }

    /// Waits while the reader's buffer is full.
    func forward(_ response: TransportResponse, to stream: ResponseBodyStream) async throws -> ReceivedResponse {
        streamStarted?(response.statusCode)
        let expected = response.expectedLength
        var forwarded: Int64 = 0
        var kept = Data()
        for try await chunk in response.body {
            if kept.count < keepsPrefix { kept.append(chunk.prefix(keepsPrefix - kept.count)) }
            await stream.receive(chunk)
            try Task.checkCancellation()
            forwarded += Int64(chunk.count)
            arrived(total: forwarded, expected: expected)
        }
        return ReceivedResponse(
            statusCode: response.statusCode, headers: response.headers, url: response.url, body: Data(),
            bytes: forwarded, streamedPrefix: kept, httpVersion: response.httpVersion)
    }

    private func arrived(total: Int64, expected: Int64?) {
        progressWatch?.watchedTransfer()?.report(.download, completed: total, expected: expected ?? -1)
    }
}
