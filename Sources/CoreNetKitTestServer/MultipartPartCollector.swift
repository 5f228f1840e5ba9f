//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Crypto
import NIOCore

/// Turns the events of MultipartKit's streaming `MultipartParser` into the parts `POST /upload`
/// reports: each part's form-data name, filename, content type, headers, size and SHA-256,
/// hashed as the body streams in (a 50 MB part is never held in memory).
///
/// Used by one request's handler only, in one task: not `Sendable`.
final class MultipartPartCollector {
    /// Why the body is not acceptable `multipart/form-data`; answered as 400 `BAD_MULTIPART`.
    struct Failure: Error {
        let message: String
    }

    /// One complete part.
    struct Part {
        let name: String
        let filename: String?
        let contentType: String?
        /// Header names lowercased, in arrival order; repeated names joined with ", ".
        let headers: [(String, String)]
        var size = 0
        var hasher = Crypto.SHA256()
    }

    private var headers: [(String, String)] = []
    private var current: Part?
    private(set) var parts: [Part] = []
    /// The first malformed part, if any; parsing continues but the request fails.
    private(set) var failure: Failure?

    func header(name: String, value: String) {
        let name = name.lowercased()
        if let index = headers.firstIndex(where: { $0.0 == name }) {
            headers[index].1 += ", " + value
        } else {
            headers.append((name, value))
        }
    }

    func body(_ buffer: ByteBuffer) {
        if current == nil { startPart() }
        buffer.withUnsafeReadableBytes { bytes in
            current?.size += bytes.count
            current?.hasher.update(bufferPointer: bytes)
        }
    }

    func completePart() {
        if current == nil { startPart() }
        if let part = current { parts.append(part) }
        current = nil
        headers = []
    }

    /// The parts, once the body has ended.
    func finish() throws(Failure) -> [Part] {
        if let failure { throw failure }
        guard current == nil, headers.isEmpty else { throw Failure(message: "The body ended inside a part") }
        guard !parts.isEmpty else { throw Failure(message: "The body has no closing boundary or no part") }
        return parts
    }

    /// Reads the form-data name and filename from the headers collected so far.
    private func startPart() {
        do {
            current = try Self.makePart(headers: headers)
        } catch {
            if failure == nil { failure = error }
            current = Part(name: "", filename: nil, contentType: nil, headers: headers)
        }
    }

    private static func makePart(headers: [(String, String)]) throws(Failure) -> Part {
        guard let disposition = headers.first(where: { $0.0 == "content-disposition" })?.1 else {
            throw Failure(message: "A part has no Content-Disposition header")
        }
        guard let parsed = HeaderParameters(disposition), parsed.value.lowercased() == "form-data" else {
            throw Failure(message: "A part's Content-Disposition is not form-data")
        }
        guard let name = parsed["name"] else { throw Failure(message: "A part's Content-Disposition has no name") }
        var filename = parsed["filename"]
        if let extended = parsed["filename*"] {
            guard let decoded = HeaderParameters.decodeExtendedValue(extended) else {
                throw Failure(message: "A part's filename* is malformed")
            }
            filename = decoded
        }
        let contentType = headers.first { $0.0 == "content-type" }?.1
        return Part(name: name, filename: filename, contentType: contentType, headers: headers)
    }
}
