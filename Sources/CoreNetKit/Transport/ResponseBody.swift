//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The body of a response as the pipeline pulls it: an asynchronous sequence of byte chunks.
///
/// A ``Transport`` returns it with the head; the pipeline iterates it once, keeping the deadline and size budget.
/// The reader sets the pace: past ``Transport/bodyBufferLimit`` unread bytes the transport is told to pause.
/// Stopping early (breaking the loop, cancelling the reading Task, dropping the body) closes the connection.
///
/// A custom transport makes one from bytes (``init(_:)-(Data)``) or any `Sendable` async sequence of `Data`
/// (``init(_:)-(Chunks)``), which should stop and release its connection when its iterator is dropped or its Task
/// is cancelled.
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = Data

    enum Storage: Sendable {
        case data(Data)
        case sequence(@Sendable () -> AsyncIterator.Source)
        case exchange(ExchangeDriver.Owner)
    }

    let storage: Storage

    init(storage: Storage) { self.storage = storage }

    /// An empty body.
    public static let empty = ResponseBody(Data())

    /// A body of the bytes `data`, handed over as one chunk.
    public init(_ data: Data) { storage = .data(data) }

    /// A body of the chunks of `chunks`, iterated once.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == Data {
        storage = .sequence {
            var iterator = chunks.makeAsyncIterator()
            return .next { try await iterator.next() }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        switch storage {
        case .data(let data): AsyncIterator(source: .data(data.isEmpty ? nil : data))
        case .sequence(let make): AsyncIterator(source: make())
        case .exchange(let owner): AsyncIterator(source: .exchange(ExchangeDriver.Reader(owner)))
        }
    }

    /// Pulls the chunks one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        enum Source {
            case data(Data?)
            case next(() async throws -> Data?)
            case exchange(ExchangeDriver.Reader)
        }

        var source: Source

        /// The next non-empty chunk, `nil` at the end of the body.
        ///
        /// - Throws: the transport's error when the body broke off, or `CancellationError`.
        public mutating func next() async throws -> Data? {
            switch source {
            case .data(let data):
                source = .data(nil)
                return data
            case .next(let next):
                while let chunk = try await next() {
                    if !chunk.isEmpty { return chunk }
                }
                return nil
            case .exchange(let reader):
                return try await reader.next()
            }
        }
    }

    /// The whole body in memory, at most `limit` bytes.
    ///
    /// - Throws: A ``BaseServerError/Code-swift.struct/responseTooLarge`` error past `limit` (the rest is not read
    ///   and the connection is closed), or the transport's error.
    public func collect(upTo limit: Int) async throws -> Data {
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.count <= limit else {
                throw BaseServerError.responseTooLarge(limit: Int64(limit), setting: nil)
            }
            data.append(chunk)
        }
        return data
    }
}
