//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

@Suite(.timeLimit(.minutes(3))) struct MultipartEncodingTests {
    @Test func boundaryThatOccursInAPartIsReplacedByAnotherOne() throws {
        let boundaries = Locked(["CoreNetKit-taken", "CoreNetKit-free"])
        var form = MultipartData()
        form.append(Data("payload --CoreNetKit-taken-- payload".utf8), name: "data")

        let encoded = try MultipartEncoder(form) { boundaries.withLock { $0.removeFirst() } }.encode(
            temporaryFiles: nil)

        #expect(encoded.boundary == "CoreNetKit-free")
        #expect(encoded.contentType == "multipart/form-data; boundary=CoreNetKit-free")
    }

    @Test func boundaryThatOccursInAStreamedFileIsReplacedByAnotherOne() async throws {
        try await withScratchDirectory { directory in
            let file = directory.appendingPathComponent("a.bin")
            var content = Data(repeating: 0x41, count: MultipartEncoder.chunkSize - 5)
            content.append(Data("CoreNetKit-taken".utf8))  // straddles the first chunk edge
            try content.write(to: file)
            let boundaries = Locked(["CoreNetKit-taken", "CoreNetKit-free"])
            var form = MultipartData(memoryThreshold: 0, temporaryDirectory: directory)
            form.append(fileAt: file, name: "file")
            let files = TemporaryFiles()

            let encoded = try MultipartEncoder(form) { boundaries.withLock { $0.removeFirst() } }.encode(
                temporaryFiles: files)

            #expect(encoded.boundary == "CoreNetKit-free")
            guard case .file(let url) = encoded.body else {
                Issue.record("expected a file body")
                return
            }
            #expect(try Data(contentsOf: url).count == Int(encoded.length))
            #expect(contents(of: directory).count == 2)
            files.close()
            #expect(contents(of: directory) == ["a.bin"])
        }
    }

    @Test func randomBoundariesDifferAndAreValid() {
        let first = MultipartEncoder.randomBoundary()
        let second = MultipartEncoder.randomBoundary()

        #expect(first != second)
        #expect(first.count == 43 && first.count <= 70)
        #expect(first.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" })
    }

    @Test func mimeTypeIsGuessedFromTheExtensionWhenNotGiven() {
        let url = URL(fileURLWithPath: "/tmp/Holiday.MOV")

        #expect(MultipartData.Part.file(url, name: "video").resolvedMimeType == "video/quicktime")
        #expect(MultipartData.Part.data(Data(), name: "a", filename: "scan.png").resolvedMimeType == "image/png")
        #expect(
            MultipartData.Part.data(Data(), name: "a", filename: "x.png", mimeType: "image/apng").resolvedMimeType
                == "image/apng")
        #expect(
            MultipartData.Part.data(Data(), name: "a", filename: "notes.unknown").resolvedMimeType
                == "application/octet-stream")
        #expect(MultipartData.Part.data(Data(), name: "a").resolvedMimeType == "application/octet-stream")
        #expect(MultipartData.Part.text("v", name: "a").resolvedMimeType == nil)
    }

    @Test func namesAndFilenamesCannotBreakOutOfTheirHeader() throws {
        let part = MultipartData.Part.data(Data(), name: "n\"\r\nX: 1", filename: "f\"\r\n\\😀.txt")

        let header = String(decoding: try MultipartHeaders.block(for: part), as: UTF8.self)

        let lines = header.components(separatedBy: "\r\n")
        #expect(
            lines == [
                #"Content-Disposition: form-data; name="n%22%0D%0AX: 1"; filename="f%22%0D%0A\\😀.txt"; filename*=UTF-8''f%22%0D%0A%5C%F0%9F%98%80.txt"#,
                "Content-Type: text/plain", "", "",
            ])
    }

    @Test func plainUnicodeFilenameIsSentAsUTF8WithoutAnExtendedValue() throws {
        let part = MultipartData.Part.data(Data(), name: "photo", filename: "Fotoğraf 🙂.jpg")

        let header = String(decoding: try MultipartHeaders.block(for: part), as: UTF8.self)

        #expect(header.hasPrefix("Content-Disposition: form-data; name=\"photo\"; filename=\"Fotoğraf 🙂.jpg\"\r\n"))
        #expect(!header.contains("filename*"))
    }

    @Test func partHeadersThatCouldSplitALineEndInInvalidRequest() {
        let forms: [MultipartData.Part] = [
            .data(Data(), name: "a", headers: ["X-Note": "one\r\nX-Injected: yes"]),
            .data(Data(), name: "a", headers: ["X Bad": "v"]),
            .data(Data(), name: "a", mimeType: "text/plain\r\nX-Injected: yes"),
            .data(Data(), name: "a", headers: ["Content-Disposition": "form-data; name=\"b\""]),
        ]

        for part in forms {
            let error = #expect(throws: BaseServerError.self) {
                try MultipartEncoder(MultipartData([part])).encode(temporaryFiles: nil)
            }
            #expect(error?.code == .invalidRequest)
        }
    }

    @Test func formWithoutPartsEndsInInvalidRequest() {
        let error = #expect(throws: BaseServerError.self) {
            try MultipartEncoder(MultipartData()).encode(temporaryFiles: nil)
        }

        #expect(error?.code == .invalidRequest)
    }

    @Test func missingFilePartEndsInFileAccessWithoutReachingTheServer() async throws {
        try await withTestServer { server in
            var form = MultipartData()
            form.append(fileAt: URL(fileURLWithPath: "/nonexistent/corenetkit/photo.jpg"), name: "photo")
            let request = TestRequest<JSON>(configuration: testConfiguration()) { [form] in server.post("/upload", form)
            }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .fileAccess)
            #expect(error.message?.contains("/nonexistent/corenetkit/photo.jpg") == true)
            #expect(server.hits(path: "/upload") == 0)
        }
    }

    @Test func multipartWithGetEndsInInvalidRequest() async throws {
        var form = MultipartData()
        form.append("v", name: "a")
        let request = TestRequest<JSON>(configuration: testConfiguration()) { [form] in
            ServerRequest(method: .get, baseUrl: URL(string: "http://127.0.0.1:9")!, parameters: .multipart(form))
        }

        let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

        #expect(error.code == .invalidRequest)
    }

    @Test func loggedMultipartRequestShowsTheSizeButNoFieldValues() async throws {
        try await withTestServer { server in
            let lines = Locked<[String]>([])
            let logger = PrintNetworkLogger(includesBodies: true, includesCURL: true) { line in
                lines.withLock { $0.append(line) }
            }
            var form = MultipartData()
            form.append("hunter2", name: "password")
            let request = TestRequest<UploadReport>(configuration: testConfiguration { $0.logger = logger }) { [form] in
                server.post("/upload", form)
            }

            _ = try await request.performAsync()

            let text = lines.withLock { $0.joined(separator: "\n") }
            #expect(!text.contains("hunter2"))
            #expect(text.contains("<multipart body, "))
        }
    }
}
