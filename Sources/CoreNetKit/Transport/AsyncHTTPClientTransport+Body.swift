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
#endif
