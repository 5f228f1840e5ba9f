//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Turns a ``MultipartData`` into a body: in memory up to the form's threshold, else chunked into a tracked temp file.
struct MultipartEncoder {
    /// Bytes held in memory, or in a file read when they are sent.
    enum Bytes {
        case memory(Data)
        case file(URL)
    }

    /// An encoded body and the `Content-Type` that names its boundary.
    struct Encoded {
        let body: Bytes
        let contentType: String
        let length: Int64
        let boundary: String
    }

    /// Bytes copied from a file at a time.
    static let chunkSize = 1 << 20
    /// Boundaries tried before giving up (a random one collides with probability 2⁻¹²⁸).
    static let boundaryAttempts = 8

    let form: MultipartData
    let makeBoundary: @Sendable () -> String

    init(_ form: MultipartData, makeBoundary: @escaping @Sendable () -> String = MultipartEncoder.randomBoundary) {
        self.form = form
        self.makeBoundary = makeBoundary
    }

    /// `CoreNetKit-` and 128 random bits in hex.
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = [generator.next() as UInt64, generator.next() as UInt64].map { value in
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return "CoreNetKit-" + digits.joined()
    }

    /// Encodes the form (in memory whatever its size without `temporaryFiles`). Throws ``BaseServerError``
    /// `invalidRequest` (no parts, bad headers, no usable boundary) or `fileAccess` (a file part is missing, unreadable
    /// or changes while read); `CancellationError` if the Task is cancelled or `temporaryFiles` closed meanwhile.
    func encode(temporaryFiles: TemporaryFiles?) throws -> Encoded {
        guard !form.parts.isEmpty else {
            throw BaseServerError.invalidRequest("a multipart body needs at least one part")
        }
        let layouts = try form.parts.map(PartLayout.init)
        for _ in 0..<Self.boundaryAttempts {
            let boundary = makeBoundary()
            let pattern = Array(boundary.utf8)
            guard !layouts.contains(where: { $0.inMemoryBytesContain(pattern) }) else { continue }
            let length = layouts.reduce(Int64(closing(boundary).count)) { sum, part in
                sum + Int64(delimiter(boundary).count + part.header.count + 2) + part.contentLength
            }
            let contentType = "multipart/form-data; boundary=" + boundary
            if let temporaryFiles, length > Int64(form.memoryThreshold) {
                if let url = try write(layouts, boundary: boundary, length: length, into: temporaryFiles) {
                    return Encoded(body: .file(url), contentType: contentType, length: length, boundary: boundary)
                }
            } else if let data = try assemble(layouts, boundary: boundary, length: length) {
                return Encoded(body: .memory(data), contentType: contentType, length: length, boundary: boundary)
            }
        }
        throw BaseServerError.invalidRequest("no multipart boundary could be found that does not occur in the body")
    }

    private func delimiter(_ boundary: String) -> Data { Data(("--" + boundary + "\r\n").utf8) }
    private func closing(_ boundary: String) -> Data { Data(("--" + boundary + "--\r\n").utf8) }
    private static let lineBreak = Data("\r\n".utf8)

    /// The body in memory, or `nil` when a file part contains the boundary.
    private func assemble(_ layouts: [PartLayout], boundary: String, length: Int64) throws -> Data? {
        let pattern = Array(boundary.utf8)
        var body = Data()
        body.reserveCapacity(Int(length))
        for part in layouts {
            body.append(delimiter(boundary))
            body.append(part.header)
            switch part.content {
            case .memory(let data):
                body.append(data)
            case .file(let url):
                let data = try FileRead.contents(of: url, expectedSize: part.contentLength)
                if ByteSearch.contains(pattern, in: data) { return nil }
                body.append(data)
            }
            body.append(Self.lineBreak)
        }
        body.append(closing(boundary))
        return body
    }

    /// The body in a new temporary file (removed if anything fails), or `nil` when a file part contains the boundary.
    private func write(
        _ layouts: [PartLayout], boundary: String, length: Int64,
        into temporaryFiles: TemporaryFiles
    ) throws -> URL? {
        let url = try temporaryFiles.create(
            in: form.temporaryDirectory,
            name: "CoreNetKit-multipart-\(UUID().uuidString).tmp")
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            var written: Int64 = 0
            func put(_ data: Data) throws {
                try handle.write(contentsOf: data)
                written += Int64(data.count)
            }
            let isCancelled: @Sendable () -> Bool = { Task.isCancelled || temporaryFiles.isClosed }
            for part in layouts {
                try put(delimiter(boundary))
                try put(part.header)
                switch part.content {
                case .memory(let data):
                    try put(data)
                case .file(let file):
                    let clean = try FileRead.copy(
                        file, expectedSize: part.contentLength, chunkSize: Self.chunkSize,
                        rejecting: Array(boundary.utf8), isCancelled: isCancelled, to: put)
                    guard clean else {
                        temporaryFiles.remove(url)
                        return nil
                    }
                }
                try put(Self.lineBreak)
            }
            try put(closing(boundary))
            guard written == length else {
                throw BaseServerError(
                    code: .fileAccess, message: "the multipart body's temporary file has the wrong size")
            }
            return url
        } catch {
            temporaryFiles.remove(url)
            if let error = error as? CocoaError, error.isFileError {
                throw BaseServerError(
                    code: .fileAccess, message: "could not write the multipart body: \(error.localizedDescription)",
                    underlyingError: error)
            }
            throw error
        }
    }
}

/// A part with its header block built and its content measured.
struct PartLayout {
    let header: Data
    let content: MultipartEncoder.Bytes
    let contentLength: Int64

    init(_ part: MultipartData.Part) throws {
        header = try MultipartHeaders.block(for: part)
        switch part.content {
        case .text(let text):
            content = .memory(Data(text.utf8))
            contentLength = Int64(text.utf8.count)
        case .data(let data):
            content = .memory(data)
            contentLength = Int64(data.count)
        case .file(let url):
            content = .file(url)
            contentLength = try FileRead.size(of: url)
        }
    }

    /// Whether the header or in-memory content contains `pattern`.
    func inMemoryBytesContain(_ pattern: [UInt8]) -> Bool {
        if ByteSearch.contains(pattern, in: header) { return true }
        if case .memory(let data) = content { return ByteSearch.contains(pattern, in: data) }
        return false
    }
}

/// Finds a byte pattern in data, with `memchr` and `memcmp`.
enum ByteSearch {
    /// Whether `pattern` occurs in `data`.
    static func contains(_ pattern: [UInt8], in data: Data) -> Bool {
        guard !pattern.isEmpty, data.count >= pattern.count else { return false }
        return data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return false }
            return pattern.withUnsafeBytes { needle in
                let first = Int32(needle[0])
                let lastStart = buffer.count - needle.count
                var position = 0
                while position <= lastStart {
                    guard let hit = memchr(base + position, first, lastStart - position + 1) else { return false }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, needle.baseAddress!, needle.count) == 0 { return true }
                    position = index + 1
                }
                return false
            }
        }
    }

    /// Looks for a pattern in a stream of chunks, including across chunk edges.
    struct Scanner {
        private let pattern: [UInt8]
        private var tail: [UInt8] = []

        init(_ pattern: [UInt8]) { self.pattern = pattern }

        /// Whether the pattern occurs in everything fed so far, ending in `chunk`.
        mutating func feed(_ chunk: Data) -> Bool {
            guard !pattern.isEmpty else { return false }
            let keep = pattern.count - 1
            if !tail.isEmpty, ByteSearch.contains(pattern, in: Data(tail + chunk.prefix(keep))) { return true }
            if ByteSearch.contains(pattern, in: chunk) { return true }
            tail = chunk.count >= keep ? Array(chunk.suffix(keep)) : Array((tail + chunk).suffix(keep))
            return false
        }
    }
}

/// Reads multipart file parts' files, reporting every problem as ``BaseServerError`` `fileAccess`.
enum FileRead {
    /// The size of the regular, readable file at `url`.
    static func size(of url: URL) throws -> Int64 {
        guard url.isFileURL else { throw failure(url, "is not a file URL") }
        let manager = FileManager.default
        let attributes = try attempt(url, "does not exist or cannot be read") {
            try manager.attributesOfItem(atPath: url.path)
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw failure(url, "is not a regular file")
        }
        guard manager.isReadableFile(atPath: url.path) else { throw failure(url, "cannot be read") }
        guard let size = (attributes[.size] as? NSNumber)?.int64Value else { throw failure(url, "has no size") }
        return size
    }

    /// The whole file, which must still be `expectedSize` bytes long.
    static func contents(of url: URL, expectedSize: Int64) throws -> Data {
        let data = try attempt(url, "cannot be read") { try Data(contentsOf: url) }
        guard Int64(data.count) == expectedSize else { throw failure(url, "changed while the body was built") }
        return data
    }

    /// Copies the file to `write` in chunks of `chunkSize`, checking `isCancelled` before each. Returns `false`, having
    /// stopped, as soon as `rejecting` occurs (also across chunks). Throws `fileAccess` when the file can't be read or
    /// is no longer `expectedSize` bytes; `CancellationError`; whatever `write` throws.
    static func copy(
        _ url: URL, expectedSize: Int64, chunkSize: Int, rejecting pattern: [UInt8],
        isCancelled: () -> Bool, to write: (Data) throws -> Void
    ) throws -> Bool {
        let handle = try attempt(url, "cannot be read") { try FileHandle(forReadingFrom: url) }
        defer { try? handle.close() }
        var scanner = ByteSearch.Scanner(pattern)
        var copied: Int64 = 0
        while true {
            if isCancelled() { throw CancellationError() }
            let chunk = try attempt(url, "cannot be read") { try handle.read(upToCount: chunkSize) ?? Data() }
            if chunk.isEmpty { break }
            copied += Int64(chunk.count)
            guard copied <= expectedSize else { throw failure(url, "changed while the body was built") }
            if scanner.feed(chunk) { return false }
            try write(chunk)
        }
        guard copied == expectedSize else { throw failure(url, "changed while the body was built") }
        return true
    }

    /// `body`'s result; what it throws becomes `fileAccess` saying the file `problem`.
    private static func attempt<T>(_ url: URL, _ problem: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw failure(url, problem, error)
        }
    }

    private static func failure(_ url: URL, _ problem: String, _ underlying: (any Error)? = nil) -> BaseServerError {
        BaseServerError(
            code: .fileAccess, message: "the file \(url.isFileURL ? url.path : url.absoluteString) \(problem)",
            underlyingError: underlying)
    }
}
