//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Crypto
import Dispatch
import Foundation

@testable import CoreNetKit

/// A directory of its own for one test, removed afterwards.
func withScratchDirectory<T: Sendable>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("corenetkit-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// The names in `directory`, sorted.
func contents(of directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}

/// A file of `bytes` pseudo-random bytes (from `seed`), written in 1 MiB chunks.
struct ScratchFile: Sendable {
    let url: URL
    let size: Int
    let sha256: String

    init(in directory: URL, name: String, bytes: Int, seed: UInt64 = 1) throws {
        url = directory.appendingPathComponent(name)
        size = bytes
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var hasher = Crypto.SHA256()
        // One pseudo-random block (xorshift64 from `seed`), each chunk stamped with its index.
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var block = [UInt8](repeating: 0, count: min(bytes, 1 << 20))
        for index in block.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            block[index] = UInt8(truncatingIfNeeded: state)
        }
        var remaining = bytes
        var chunkIndex: UInt64 = 0
        while remaining > 0 {
            var chunk = Data(block.prefix(remaining))
            withUnsafeBytes(of: chunkIndex.littleEndian) { stamp in
                for (offset, byte) in stamp.prefix(chunk.count).enumerated() { chunk[offset] = byte }
            }
            hasher.update(data: chunk)
            try handle.write(contentsOf: chunk)
            remaining -= chunk.count
            chunkIndex += 1
        }
        sha256 = hasher.finalize().hex
    }
}

/// What the context of one request delivered, in order: progress values and the terminal event.
final class TransferLog: Sendable {
    enum Entry: Sendable {
        case upload(TransferProgress)
        case download(TransferProgress)
        case terminal(String)
    }

    private let entries = Locked<[Entry]>([])
    private let firstUpload = Once<TransferProgress>()
    private let firstDownload = Once<TransferProgress>()
    private let queueKey = DispatchSpecificKey<Bool>()
    private let wrongQueue = Locked(0)

    /// Attaches progress and terminal handlers to `context`; they must run on its queue.
    init<Model: Sendable>(_ context: RequestContext<Model>) {
        context.queue.setSpecific(key: queueKey, value: true)
        context
            .onUploadProgress { [self] progress in
                record(.upload(progress))
                firstUpload.fire(progress)
            }
            .onDownloadProgress { [self] progress in
                record(.download(progress))
                firstDownload.fire(progress)
            }
            .onSuccess { [self] _ in record(.terminal("success")) }
            .onError { [self] _ in record(.terminal("failure")) }
            .onCancel { [self] in record(.terminal("cancel")) }
    }

    private func record(_ entry: Entry) {
        if DispatchQueue.getSpecific(key: queueKey) != true { wrongQueue.withLock { $0 += 1 } }
        entries.withLock { $0.append(entry) }
    }

    /// How many handlers ran off the context's callback queue.
    var handlersOffQueue: Int { wrongQueue.withLock { $0 } }

    var all: [Entry] { entries.withLock { $0 } }
    var uploads: [TransferProgress] { all.compactMap { if case .upload(let p) = $0 { p } else { nil } } }
    var downloads: [TransferProgress] { all.compactMap { if case .download(let p) = $0 { p } else { nil } } }
    /// Entries recorded after the first terminal event (should be none).
    var afterTerminal: [Entry] {
        guard let index = all.firstIndex(where: { if case .terminal = $0 { true } else { false } }) else { return [] }
        return Array(all[(index + 1)...])
    }

    /// Awaits the first upload progress value (bounded).
    func firstUploadProgress() async throws -> TransferProgress {
        try await withTimeout(30, "upload progress") { await self.firstUpload.value }
    }

    /// Awaits the first download progress value (bounded).
    func firstDownloadProgress() async throws -> TransferProgress {
        try await withTimeout(30, "download progress") { await self.firstDownload.value }
    }
}

/// Whether `values` never go down in bytes or fraction.
func isMonotonic(_ values: [TransferProgress]) -> Bool {
    zip(values, values.dropFirst()).allSatisfy { $1.completedBytes >= $0.completedBytes && $1.fraction >= $0.fraction }
}

/// The part descriptions `POST /upload` answers with.
struct UploadReport: Decodable, Sendable {
    struct Part: Decodable, Sendable {
        let name: String
        let filename: String?
        let contentType: String?
        let size: Int
        let sha256: String
        let headers: [String: String]
    }
    let parts: [Part]
    let totalBytes: Int
}

extension TestServer {
    /// A POST of `form` to `path` on this server.
    func post(_ path: String, _ form: MultipartData) -> ServerRequest {
        ServerRequest(method: .post, baseUrl: baseURL, relativeUrl: path, parameters: .multipart(form))
    }
}
