//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore

/// A file read in 64 KiB chunks as an async sequence of buffers: a request body that is never
/// held in memory whole.
struct FileBodyChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let url: URL
    let total: Int64
    let progress: (@Sendable (Int64, Int64) -> Void)?
    static let chunkSize = 64 * 1024

    static func size(of url: URL) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(url: url, total: total, progress: progress)
    }

    struct Iterator: AsyncIteratorProtocol {
        let url: URL
        let total: Int64
        let progress: (@Sendable (Int64, Int64) -> Void)?
        var handle: FileHandle?
        var sent: Int64 = 0
        var opened = false

        init(url: URL, total: Int64, progress: (@Sendable (Int64, Int64) -> Void)?) {
            self.url = url
            self.total = total
            self.progress = progress
        }

        mutating func next() async throws -> ByteBuffer? {
            try Task.checkCancellation()
            if !opened {
                handle = try FileHandle(forReadingFrom: url)
                opened = true
            }
            guard let handle else { return nil }
            guard let data = try handle.read(upToCount: FileBodyChunks.chunkSize), !data.isEmpty else {
                try? handle.close()
                self.handle = nil
                return nil
            }
            sent += Int64(data.count)
            progress?(sent, total)
            return ByteBuffer(bytes: data)
        }
    }
}

/// An in-memory request body sent in 64 KiB chunks, so that upload progress moves as the
/// bytes go out instead of jumping to 1.0 before anything is sent.
struct MemoryBodyChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let data: Data
    let progress: (@Sendable (Int64, Int64) -> Void)?
    static let chunkSize = 64 * 1024

    /// The body for `data`: whole when nobody listens for progress or it fits in one chunk.
    static func body(_ data: Data, progress: (@Sendable (Int64, Int64) -> Void)?) -> HTTPClientRequest.Body {
        guard let progress, data.count > chunkSize else {
            progress?(Int64(data.count), Int64(data.count))
            return .bytes(ByteBuffer(bytes: data))
        }
        return .stream(MemoryBodyChunks(data: data, progress: progress), length: .known(Int64(data.count)))
    }

    func makeAsyncIterator() -> Iterator { Iterator(data: data, progress: progress) }

    struct Iterator: AsyncIteratorProtocol {
        let data: Data
        let progress: (@Sendable (Int64, Int64) -> Void)?
        var offset = 0

        mutating func next() async throws -> ByteBuffer? {
            try Task.checkCancellation()
            guard offset < data.count else { return nil }
            let end = Swift.min(offset + MemoryBodyChunks.chunkSize, data.count)
            let start = data.startIndex + offset
            let chunk = ByteBuffer(bytes: data[start..<(data.startIndex + end)])
            offset = end
            progress?(Int64(end), Int64(data.count))
            return chunk
        }
    }
}

/// Where a response body goes: memory, a reader's callback (`forward`, chunk by chunk), or a
/// file that is removed again on failure unless `keepsPartial` (the pipeline then resumes from
/// it).
struct BodySink {
    private var data = Data()
    private let file: FileHandle?
    private let destination: URL?
    private let expected: Int64
    private let keepsPartial: Bool
    private let progress: (@Sendable (Int64, Int64) -> Void)?
    private let forward: (@Sendable (Data) -> Void)?
    private var received: Int64 = 0

    init(
        destination: URL?, expected: Int64, keepsPartial: Bool, progress: (@Sendable (Int64, Int64) -> Void)?,
        forward: (@Sendable (Data) -> Void)? = nil
    ) throws {
        self.destination = destination
        self.expected = expected
        self.keepsPartial = keepsPartial
        self.progress = progress
        self.forward = forward
        if forward != nil {
            file = nil
        } else if let destination {
            try? FileManager.default.removeItem(at: destination)
            guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
            }
            file = try FileHandle(forWritingTo: destination)
        } else {
            file = nil
            if expected > 0 { data.reserveCapacity(Int(min(expected, 64 << 20))) }
        }
    }

    mutating func append(_ chunk: ByteBuffer) throws {
        let count = chunk.readableBytes
        if let forward {
            if count > 0 { forward(chunk.withUnsafeReadableBytes { Data($0) }) }
        } else if let file {
            try chunk.withUnsafeReadableBytes { try file.write(contentsOf: Data($0)) }
        } else {
            chunk.withUnsafeReadableBytes { data.append(contentsOf: $0) }
        }
        received += Int64(count)
        progress?(received, expected)
    }

    func finish() throws -> Data {
        try file?.close()
        return data
    }

    func discard() {
        try? file?.close()
        if let destination, !keepsPartial { try? FileManager.default.removeItem(at: destination) }
    }
}
#endif
