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
    /// A request body of known length up to this many bytes is sent from memory; a larger one, or one of unknown
    /// length, from a scratch file.
    static let memoryBodyLimit = 1 << 20

    /// Where a request body that is not kept in memory goes.
    struct ScratchFile {
        let files: TemporaryFiles
        let directory: URL
    }

    /// Sets `body` as `request`'s body: in memory when it is small and of known length, else written chunk by chunk to
    /// a scratch file (owner-only, tracked by `scratch.files`).
    ///
    /// - Throws: ``BaseServerError`` `invalidRequest` when the body cannot be read or is larger than `maximumBodySize`,
    ///   `fileAccess` when the file cannot be written, `cancelled` when the Task is cancelled.
    static func attach(
        _ body: HTTPBody, to request: inout ServerRequest, maximumBodySize: Int?, scratch: ScratchFile
    ) async throws {
        do {
            if case .known(let length) = body.length {
                if let maximumBodySize, length > maximumBodySize { throw tooLarge(maximumBodySize) }
                if length <= memoryBodyLimit {
                    request.rawBody = try await Data(collecting: body, upTo: Int(length))
                    return
                }
            }
            request.rawBodyFile = try await write(body, to: scratch, maximumBodySize: maximumBodySize)
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

    /// Writes `body` to a new scratch file as it arrives and returns the file.
    private static func write(_ body: HTTPBody, to scratch: ScratchFile, maximumBodySize: Int?) async throws -> URL {
        let file = try scratch.files.create(
            in: scratch.directory, name: "corenetkit-body-\(UUID().uuidString).tmp", ownerOnly: true)
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

/// A streamed response body as the runtime reads it: the chunks of a ``ResponseBodyStream``.
///
/// When the last copy of it and of its iterator is gone — the client dropped the body, read or not — a request still
/// running is cancelled.
struct StreamedResponseBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    private let reader: Reader

    init(_ stream: ResponseBodyStream) {
        reader = Reader(stream: stream)
    }

    func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    struct Iterator: AsyncIteratorProtocol {
        fileprivate let reader: Reader

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard let chunk = try await reader.stream.next() else { return nil }
            return HTTPBody.ByteChunk(chunk)
        }
    }

    /// Cancels the request when the reader is gone.
    fileprivate final class Reader: Sendable {
        let stream: ResponseBodyStream

        init(stream: ResponseBodyStream) { self.stream = stream }

        deinit { stream.cancel() }
    }
}
#endif
