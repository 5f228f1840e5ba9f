//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

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
