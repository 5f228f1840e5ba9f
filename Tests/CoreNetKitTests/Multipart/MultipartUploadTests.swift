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
import Testing

@testable import CoreNetKit

@Suite(.timeLimit(.minutes(3))) struct MultipartUploadTests {
    @Test func fieldsAndThreeFilesRoundTripByteExact() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let photo = try ScratchFile(in: directory, name: "photo.jpg", bytes: 300_000, seed: 1)
                let report = try ScratchFile(in: directory, name: "report.pdf", bytes: 1_048_577, seed: 2)
                let empty = try ScratchFile(in: directory, name: "empty.bin", bytes: 0, seed: 3)
                let bytes = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
                var form = MultipartData()
                form.append("Ada Lovelace", name: "author")
                form.append("Grüße 👋\r\nzweite Zeile", name: "note")
                form.append(fileAt: photo.url, name: "photo")
                form.append(fileAt: report.url, name: "report", filename: "Report 2025.pdf")
                form.append(fileAt: empty.url, name: "empty", mimeType: "application/x-empty")
                form.append(bytes, name: "raw", filename: "raw.dat", headers: ["X-Checksum-Kind": "none"])
                let request = TestRequest<UploadReport>(configuration: testConfiguration()) { [form] in
                    server.post("/upload", form)
                }

                let result = try await request.performAsync()

                let parts = result.parts
                #expect(parts.map(\.name) == ["author", "note", "photo", "report", "empty", "raw"])
                #expect(
                    parts[0].filename == nil && parts[0].contentType == nil
                        && parts[0].sha256 == Crypto.SHA256.hash(data: Data("Ada Lovelace".utf8)).hex)
                #expect(parts[1].sha256 == Crypto.SHA256.hash(data: Data("Grüße 👋\r\nzweite Zeile".utf8)).hex)
                #expect(parts[2].filename == "photo.jpg" && parts[2].contentType == "image/jpeg")
                #expect(parts[2].size == photo.size && parts[2].sha256 == photo.sha256)
                #expect(parts[3].filename == "Report 2025.pdf" && parts[3].contentType == "application/pdf")
                #expect(parts[3].size == report.size && parts[3].sha256 == report.sha256)
                #expect(
                    parts[4].size == 0 && parts[4].sha256 == empty.sha256
                        && parts[4].contentType == "application/x-empty")
                #expect(parts[5].filename == "raw.dat" && parts[5].contentType == "application/octet-stream")
                #expect(
                    parts[5].sha256 == Crypto.SHA256.hash(data: bytes).hex
                        && parts[5].headers["x-checksum-kind"] == "none")
            }
        }
    }

    @Test func fiftyMegabyteFileStreamsFromDiskWithProgressRisingMonotonicallyToOne() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let big = try ScratchFile(in: directory, name: "big.bin", bytes: 50 * 1024 * 1024, seed: 4)
                let spool = directory.appendingPathComponent("spool", isDirectory: true)
                try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
                var form = MultipartData(temporaryDirectory: spool)
                form.append("big", name: "title")
                form.append(fileAt: big.url, name: "file")
                // The clock never moves, so the throttle lets through only the first value and
                // the closing 1.0: progress is paced by the configuration's clock.
                let configuration = testConfiguration { $0.clock = ManualClock() }
                let context = TestRequest<UploadReport>(configuration: configuration) { [form] in
                    server.post("/upload", form)
                }.perform()
                let log = TransferLog(context)

                let result = try await withTimeout(120) { try await context.value }

                #expect(result.parts.map(\.name) == ["title", "file"])
                #expect(result.parts[1].size == big.size && result.parts[1].sha256 == big.sha256)
                let uploads = log.uploads
                #expect(uploads.count == 2)
                #expect(isMonotonic(uploads))
                #expect(uploads.last?.fraction == 1.0)
                #expect(uploads.last?.totalBytes == Int64(result.totalBytes))
                #expect(log.afterTerminal.isEmpty)
                #expect(contents(of: spool).isEmpty)
                #expect(log.handlersOffQueue == 0)
            }
        }
    }

    @Test func bodyAboveTheThresholdIsSentFromAFileWithAnExactContentLength() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let file = try ScratchFile(in: directory, name: "a.txt", bytes: 20_000, seed: 5)
                var form = MultipartData(memoryThreshold: 1024, temporaryDirectory: directory)
                form.append(fileAt: file.url, name: "file")
                let expectedLength = try MultipartEncoder(form).encode(temporaryFiles: nil).length
                let request = TestRequest<Echo>(configuration: testConfiguration()) { [form] in
                    server.post("/echo", form)
                }

                let echo = try await request.performAsync()

                #expect(echo.headers["content-length"] == String(expectedLength))
                #expect(echo.bodyLength == Int(expectedLength))
                #expect(echo.headers["transfer-encoding"] == nil)
                #expect(echo.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=CoreNetKit-") == true)
                #expect(contents(of: directory) == ["a.txt"])
            }
        }
    }

    @Test func filenameWithQuoteLineBreaksAndEmojiArrivesIntactAndCannotInjectAHeader() async throws {
        try await withTestServer { server in
            let filename = "evil\"; name=\"hijack\"\r\nX-Injected: yes\r\n\r\n😀 \\ report.txt"
            let name = "field\"\r\nX-Injected: yes"
            var form = MultipartData()
            form.append(Data("payload".utf8), name: name, filename: filename, mimeType: "text/plain")
            let request = TestRequest<UploadReport>(configuration: testConfiguration()) { [form] in
                server.post("/upload", form)
            }

            let result = try await request.performAsync()

            #expect(result.parts.count == 1)
            let part = try #require(result.parts.first)
            #expect(part.filename == filename)
            #expect(part.name == "field%22%0D%0AX-Injected: yes")
            #expect(part.contentType == "text/plain")
            #expect(part.sha256 == Crypto.SHA256.hash(data: Data("payload".utf8)).hex)
            #expect(Set(part.headers.keys) == ["content-disposition", "content-type"])
        }
    }

    @Test func cancellingMidUploadEndsCancelledAndRemovesTheTemporaryFile() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let big = try ScratchFile(in: directory, name: "big.bin", bytes: 50 * 1024 * 1024, seed: 6)
                let spool = directory.appendingPathComponent("spool", isDirectory: true)
                try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
                var form = MultipartData(temporaryDirectory: spool)
                form.append(fileAt: big.url, name: "file")
                let configuration = testConfiguration()
                let context = TestRequest<JSON>(configuration: configuration) { [form] in
                    server.post("/hold/upload-cancel", form)
                }.perform()
                let log = TransferLog(context)
                let events = EventLog(context)
                try await server.waitForArrivals(at: "upload-cancel", count: 1)
                let first = try await log.firstUploadProgress()
                let spooled = contents(of: spool)

                context.cancel()
                guard case .cancel = try await events.waitForTerminal() else {
                    Issue.record("expected cancel")
                    return
                }

                #expect(first.fraction < 1)
                #expect(spooled.count == 1)
                #expect(contents(of: spool).isEmpty)
                #expect(configuration.taskPool.isEmpty)
                server.release("upload-cancel")
            }
        }
    }

    @Test func failedUploadRemovesTheTemporaryFile() async throws {
        try await withScratchDirectory { directory in
            let server = try await TestServer.start()
            let baseURL = server.baseURL
            await server.stop()
            let file = try ScratchFile(in: directory, name: "a.bin", bytes: 64 * 1024, seed: 7)
            let spool = directory.appendingPathComponent("spool", isDirectory: true)
            try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
            var form = MultipartData(memoryThreshold: 1024, temporaryDirectory: spool)
            form.append(fileAt: file.url, name: "file")
            let request = TestRequest<JSON>(configuration: testConfiguration()) { [form] in
                ServerRequest(method: .post, baseUrl: baseURL, relativeUrl: "/upload", parameters: .multipart(form))
            }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .cannotConnect)
            #expect(contents(of: spool).isEmpty)
        }
    }
}
