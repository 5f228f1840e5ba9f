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
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPCompression

/// A request body's chunks as the `ByteBuffer`s AsyncHTTPClient pulls.
struct BufferChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let body: RequestBody

    func makeAsyncIterator() -> Iterator { Iterator(base: body.chunks().makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: RequestBodyChunks.AsyncIterator

        mutating func next() async throws -> ByteBuffer? {
            try Task.checkCancellation()
            return try await base.next().map { ByteBuffer(bytes: $0) }
        }
    }
}

/// A response body's `ByteBuffer`s as the `Data` chunks the pipeline pulls.
struct DataChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let body: HTTPClientResponse.Body

    func makeAsyncIterator() -> Iterator { Iterator(base: body.makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator

        mutating func next() async throws -> Data? {
            do {
                guard let buffer = try await base.next() else { return nil }
                return buffer.withUnsafeReadableBytes { Data($0) }
            } catch {
                throw AsyncHTTPClientTransport.map(error)
            }
        }
    }
}

/// A gzip or deflate body inflated as the pipeline reads it, a kilobyte of input at a time, so
/// ``NetworkConfiguration/maximumResponseBodySize`` bounds the output and no ratio limit refuses a small body.
struct InflatedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    /// At most ~1 MB of output at deflate's top ratio, so little is inflated unasked.
    static let step = 1024

    let body: HTTPClientResponse.Body
    let head: HTTPResponseHead

    func makeAsyncIterator() -> Iterator { Iterator(base: body.makeAsyncIterator(), head: head) }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let head: HTTPResponseHead
        var inflater: Inflater?
        var pending = ByteBuffer()
        var finished = false

        mutating func next() async throws -> Data? {
            do {
                let inflater = try inflater ?? Inflater(head: head)
                self.inflater = inflater
                while true {
                    if let chunk = try inflater.inflated() { return chunk }
                    if finished { return nil }
                    if pending.readableBytes > 0 {
                        try inflater.inflate(
                            pending.readSlice(length: Swift.min(InflatedChunks.step, pending.readableBytes))!)
                    } else if let buffer = try await base.next() {
                        pending = buffer
                    } else {
                        try inflater.finish()
                        finished = true
                    }
                }
            } catch {
                throw InflatedChunks.decodingError(error)
            }
        }
    }

    /// An inflate failure as `URLError.cannotDecodeContentData`, as URLSession reports it.
    static func decodingError(_ error: any Error) -> any Error {
        guard error is NIOHTTPDecompression.DecompressionError || error is NIOHTTPDecompression.ExtraDecompressionError
        else { return AsyncHTTPClientTransport.map(error) }
        return URLError(.cannotDecodeContentData, userInfo: [NSUnderlyingErrorKey: error])
    }

    /// NIO's response decompressor in a channel of its own, fed by hand.
    final class Inflater {
        private let channel = EmbeddedChannel()

        init(head: HTTPResponseHead) throws {
            try channel.pipeline.syncOperations.addHandler(NIOHTTPResponseDecompressor(limit: .none))
            try channel.writeInbound(HTTPClientResponsePart.head(head))
            _ = try channel.readInbound(as: HTTPClientResponsePart.self)
        }

        func inflate(_ compressed: ByteBuffer) throws {
            try channel.writeInbound(HTTPClientResponsePart.body(compressed))
        }

        func finish() throws {
            try channel.writeInbound(HTTPClientResponsePart.end(nil))
        }

        func inflated() throws -> Data? {
            while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
                if case .body(let buffer) = part, buffer.readableBytes > 0 {
                    return buffer.withUnsafeReadableBytes { Data($0) }
                }
            }
            return nil
        }
    }
}
#endif
