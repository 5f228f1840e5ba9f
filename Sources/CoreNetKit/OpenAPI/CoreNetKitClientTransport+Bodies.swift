//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension CoreNetKitClientTransport {
    /// Request bodies of known length up to this many bytes are sent from memory, others from a scratch file.
    static let memoryBodyLimit = 1 << 20

    /// Sets `body` as `request`'s body, in memory or in a scratch file in `directory` (tracked by `files`). Throws
    /// ``BaseServerError`` `invalidRequest` (unreadable or too large), `fileAccess` or `cancelled`.
    static func attach(
        _ body: HTTPBody, to request: inout ServerRequest, maximumBodySize: Int?, files: TemporaryFiles, directory: URL
    ) async throws {
        do {
            if case .known(let length) = body.length {
                if let maximumBodySize, length > maximumBodySize { throw tooLarge(maximumBodySize) }
                if length <= memoryBodyLimit {
                    request.rawBody = try await Data(collecting: body, upTo: Int(length))
                    return
                }
            }
            request.rawBodyFile = try await write(
                body, files: files, directory: directory, maximumBodySize: maximumBodySize)
        } catch let error as BaseServerError {
            throw error
        } catch is CancellationError {
            throw BaseServerError.cancelled
        } catch {
            throw BaseServerError(
                code: .invalidRequest, message: "the request body could not be read: \(error)",
                underlyingError: error)
        }
    }

    private static func write(
        _ body: HTTPBody, files: TemporaryFiles, directory: URL, maximumBodySize: Int?
    ) async throws -> URL {
        let file = try files.create(in: directory, name: "corenetkit-body-\(UUID().uuidString).tmp", ownerOnly: true)
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: file)
        } catch {
            throw BaseServerError(code: .fileAccess, message: "could not open \(file.path)", underlyingError: error)
        }
        defer { try? handle.close() }
        var written = 0
        for try await chunk in body {
            try Task.checkCancellation()
            written += chunk.count
            if let maximumBodySize, written > maximumBodySize { throw tooLarge(maximumBodySize) }
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                throw BaseServerError(
                    code: .fileAccess, message: "could not write \(file.path)", underlyingError: error)
            }
        }
        return file
    }

    private static func tooLarge(_ limit: Int) -> BaseServerError {
        BaseServerError.invalidRequest("the request body is larger than the limit of \(limit) bytes")
    }
}

/// The chunks of a ``ResponseBodyStream`` as the runtime reads them. When the last copy of it and its iterator is gone
/// (the client dropped the body), a request still running is cancelled.
struct StreamedResponseBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    private let reader: Reader

    init(_ stream: ResponseBodyStream) { reader = Reader(stream: stream) }

    func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    struct Iterator: AsyncIteratorProtocol {
        fileprivate let reader: Reader

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard let chunk = try await reader.stream.next() else { return nil }
            return HTTPBody.ByteChunk(chunk)
        }
    }

    fileprivate final class Reader: Sendable {
        let stream: ResponseBodyStream

        init(stream: ResponseBodyStream) { self.stream = stream }

        deinit { stream.cancel() }
    }
}
#endif
