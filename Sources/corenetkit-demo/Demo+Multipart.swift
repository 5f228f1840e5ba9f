//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Foundation

/// What `POST /upload` says about each part it received.
struct UploadedPart: Decodable, Sendable {
    let name: String
    let filename: String?
    let contentType: String?
    let size: Int
    let sha256: String
}

/// `POST /upload`: a title and a video file, as a multipart form.
final class UploadVideoRequest: BaseServerRequest<[UploadedPart]>, @unchecked Sendable {
    private let title: String
    private let file: URL
    init(title: String, file: URL) {
        self.title = title
        self.file = file
    }

    override func createAsyncServerRequest() -> ServerRequest {
        var form = MultipartData()
        form.append(title, name: "title")
        form.append(fileAt: file, name: "video")
        return ServerRequest(method: .post, baseUrl: API.base, relativeUrl: "/upload", parameters: .multipart(form))
    }
    override var modelKeyPath: String? { "parts" }
}

/// `GET /download/:bytes` straight into a file.
final class DownloadRequest: BaseServerRequest<DownloadedFile>, @unchecked Sendable {
    private let bytes: Int
    private let destination: URL
    init(bytes: Int, destination: URL) {
        self.bytes = bytes
        self.destination = destination
    }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(
            method: .get, baseUrl: API.base, relativeUrl: "/download/\(bytes)", downloadDestination: destination)
    }
}

/// Prints progress at 0, 25, 50, 75 and 100 %, each step once.
final class QuarterPrinter: @unchecked Sendable {  // safe: `printed` is touched only under `lock`
    private let lock = NSLock()
    private var printed = -1
    private let label: String
    init(_ label: String) { self.label = label }

    func show(_ progress: TransferProgress) {
        let quarter = Int(progress.fraction * 4)
        lock.lock()
        let isNew = quarter > printed
        if isNew { printed = quarter }
        lock.unlock()
        if isNew { print("\(label) \(Int(progress.fraction * 100))% (\(progress.completedBytes / 1_000_000) MB)") }
    }
}

/// Uploads a 30 MB file in a form and downloads 20 MB to a file, printing progress.
func runMultipartDemo(server: TestServer) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "corenetkit-demo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    section("Multipart upload of a 30 MB file, streamed from disk, with progress")
    let video = directory.appendingPathComponent("holiday.mp4")
    try downloadPattern(count: 30_000_000).write(to: video)
    let upload = QuarterPrinter("uploaded")
    let parts = try await UploadVideoRequest(title: "Holiday", file: video).perform()
        .onUploadProgress { upload.show($0) }
        .value
    for part in parts {
        let type = part.contentType ?? "text field"
        print(
            "server got \"\(part.name)\" \(part.filename.map { "(\($0)) " } ?? "")\(type), \(part.size) bytes, sha256 \(part.sha256.prefix(12))…"
        )
    }

    section("Download of 20 MB straight into a file, with progress")
    let download = QuarterPrinter("downloaded")
    let file = try await DownloadRequest(bytes: 20_000_000, destination: directory.appendingPathComponent("report.bin"))
        .perform()
        .onDownloadProgress { download.show($0) }
        .value
    print("\(file.size) bytes written to \(file.url.lastPathComponent) (\(file.contentType ?? "no type"))")
}
