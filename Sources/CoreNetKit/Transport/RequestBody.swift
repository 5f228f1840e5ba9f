//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A request body: bytes in memory, a file, or an asynchronous sequence of chunks with an optional length.
///
/// A transport either pulls it through ``chunks()`` at its own pace, or hands ``data`` or ``fileURL`` to a system
/// API and reports what was sent with ``reportSent(_:)``. The pipeline derives upload progress from either.
public struct RequestBody: Sendable {
    enum Storage: Sendable {
        case none
        case data(Data)
        case file(URL, length: Int64)
        case stream(@Sendable () -> RequestBodyChunks.Source, length: Int64?)
    }

    let storage: Storage
    /// Where the pipeline counts what was sent; `nil` when nobody watches the upload.
    var observer: UploadObserver?

    /// No body.
    public static let none = RequestBody(storage: .none)

    /// The bytes `data`.
    public static func data(_ data: Data) -> RequestBody {
        data.isEmpty ? .none : RequestBody(storage: .data(data))
    }

    /// The contents of the file at `url`, streamed rather than loaded into memory.
    ///
    /// - Throws: A ``BaseServerError/Code-swift.struct/fileAccess`` error when the file cannot be read.
    public static func file(_ url: URL) throws -> RequestBody {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let length = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            return RequestBody(storage: .file(url, length: length))
        } catch {
            throw BaseServerError(code: .fileAccess, message: "could not read \(url.path)", underlyingError: error)
        }
    }

    /// The chunks of `sequence`, iterated once when sent; `length`, when known, is sent as `Content-Length` (else the
    /// body is chunked).
    public static func stream<Chunks: AsyncSequence & Sendable>(_ sequence: Chunks, length: Int64?) -> RequestBody
    where Chunks.Element == Data {
        RequestBody(
            storage: .stream(
                {
                    var iterator = sequence.makeAsyncIterator()
                    return .next { try await iterator.next() }
                }, length: length))
    }

    /// The body's length in bytes, when known.
    public var length: Int64? {
        switch storage {
        case .none: 0
        case .data(let data): Int64(data.count)
        case .file(_, let length): length
        case .stream(_, let length): length
        }
    }

    /// Whether there is no body.
    public var isEmpty: Bool { length == 0 }

    /// The bytes, when the body is in memory.
    public var data: Data? {
        if case .data(let data) = storage { return data }
        return nil
    }

    /// The file, when the body is a file.
    public var fileURL: URL? {
        if case .file(let url, _) = storage { return url }
        return nil
    }

    /// Whether the body is an asynchronous sequence (neither in memory nor a file).
    public var isStream: Bool {
        if case .stream = storage { return true }
        return false
    }

    /// The body in chunks of at most 64 KiB, read when pulled; pulled bytes count as sent for upload progress. Each
    /// iteration starts from the beginning (a stream body can be iterated only once).
    public func chunks() -> RequestBodyChunks {
        RequestBodyChunks(body: self)
    }

    func makeSource() -> RequestBodyChunks.Source {
        switch storage {
        case .none: .data(Data())
        case .data(let data): .data(data)
        case .file(let url, _): .file(url)
        case .stream(let make, _): make()
        }
    }

    /// Reports `bytes` of the body sent so far by a system API (URLSession's `didSendBodyData`), from any thread; not
    /// for transports that pull ``chunks()``.
    public func reportSent(_ bytes: Int64) {
        observer?.sent(bytes, of: length ?? -1)
    }
}

/// Counts the bytes of a request body that went out, for the upload progress.
final class UploadObserver: Sendable {
    private let report: @Sendable (Int64, Int64) -> Void

    init(_ report: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void) { self.report = report }

    func sent(_ bytes: Int64, of total: Int64) { report(bytes, total) }
}

/// A request body's chunks as a transport pulls them (see ``RequestBody/chunks()``).
public struct RequestBodyChunks: AsyncSequence, Sendable {
    public typealias Element = Data

    enum Source {
        case data(Data)
        case file(URL)
        case next(() async throws -> Data?)
    }

    static let chunkSize = 64 * 1024
    let body: RequestBody

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: body.makeSource(), total: body.length ?? -1, observer: body.observer)
    }

    /// Reads the next chunk when asked.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var source: Source
        let total: Int64
        let observer: UploadObserver?
        var offset = 0
        var sent: Int64 = 0
        var handle: FileHandle?

        /// The next chunk, `nil` at the end.
        ///
        /// - Throws: A `fileAccess` ``BaseServerError`` when a file body cannot be read, or what a stream body threw.
        public mutating func next() async throws -> Data? {
            let chunk: Data?
            switch source {
            case .data(let data):
                guard offset < data.count else { return nil }
                let end = Swift.min(offset + RequestBodyChunks.chunkSize, data.count)
                chunk = data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end))
                offset = end
            case .file(let url):
                chunk = try readFile(url)
            case .next(let next):
                chunk = try await next()
            }
            guard let chunk else { return nil }
            sent += Int64(chunk.count)
            observer?.sent(sent, of: total)
            return chunk
        }

        private mutating func readFile(_ url: URL) throws -> Data? {
            do {
                if handle == nil { handle = try FileHandle(forReadingFrom: url) }
                guard let data = try handle?.read(upToCount: RequestBodyChunks.chunkSize), !data.isEmpty else {
                    try? handle?.close()
                    source = .data(Data())
                    return nil
                }
                return data
            } catch {
                throw BaseServerError(code: .fileAccess, message: "could not read \(url.path)", underlyingError: error)
            }
        }
    }
}
