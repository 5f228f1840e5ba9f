//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Crypto
import Foundation
import Testing

@testable import CoreNetKit

@Suite(.timeLimit(.minutes(3))) struct DownloadTests {
    @Test func fiftyMegabyteDownloadToAFileMatchesTheServersSHA256() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let count = 50 * 1024 * 1024
                let destination = directory.appendingPathComponent("nested/dir/big.bin")
                let context = HashedDownloadRequest(server: server.baseURL, count: count, destination: destination)
                    .perform()
                let log = TransferLog(context)

                let download = try await withTimeout(120) { try await context.value }
                // `value` returns before the handlers queued on the callback queue have run; one
                // attached now runs after them, so the log is complete once it has.
                await withCheckedContinuation { done in context.onCompleted { _ in done.resume() } }

                #expect(download.url == destination)
                var hasher = Crypto.SHA256()
                let handle = try FileHandle(forReadingFrom: destination)
                var size = 0
                while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                    hasher.update(data: chunk)
                    size += chunk.count
                }
                try handle.close()
                #expect(size == count)
                #expect(hasher.finalize().hex == download.serverSHA256)
                let downloads = log.downloads
                #expect(downloads.count >= 2)
                #expect(isMonotonic(downloads))
                #expect(downloads.last?.fraction == 1.0 && downloads.last?.completedBytes == Int64(count))
                #expect(log.afterTerminal.isEmpty)
                #expect(log.handlersOffQueue == 0)
                #expect(contents(of: destination.deletingLastPathComponent()) == ["big.bin"])
            }
        }
    }

    @Test func droppedConnectionRemovesThePartialFileAndKeepsTheOldDestination() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let destination = directory.appendingPathComponent("data.bin")
                try Data("old".utf8).write(to: destination)
                let request = TestRequest<URL>(configuration: testConfiguration()) {
                    ServerRequest(
                        method: .get, baseUrl: server.baseURL, relativeUrl: "/transfer/partial/4000000?after=1000000",
                        downloadDestination: destination)
                }

                let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

                #expect([.connectionLost, .transport].contains(error.code))
                #expect(contents(of: directory) == ["data.bin"])
                #expect(try Data(contentsOf: destination) == Data("old".utf8))
            }
        }
    }

    @Test func cancelledDownloadRemovesThePartialFileBeforeOnCancel() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let destination = directory.appendingPathComponent("data.bin")
                let configuration = testConfiguration()
                let context = TestRequest<URL>(configuration: configuration) {
                    ServerRequest(
                        method: .get, baseUrl: server.baseURL,
                        relativeUrl: "/transfer/partial/4000000?after=1000000&gate=download-cancel",
                        downloadDestination: destination)
                }.perform()
                let log = TransferLog(context)
                let events = EventLog(context)
                try await server.waitForArrivals(at: "download-cancel", count: 1)
                let first = try await log.firstDownloadProgress()
                let partials = contents(of: directory)

                context.cancel()
                guard case .cancel = try await events.waitForTerminal() else {
                    Issue.record("expected cancel")
                    return
                }

                #expect(first.completedBytes > 0 && first.fraction < 1)
                #expect(partials.count == 1 && partials[0].hasSuffix(".part"))
                #expect(contents(of: directory).isEmpty)
                #expect(log.afterTerminal.isEmpty)
                server.release("download-cancel")
            }
        }
    }

    @Test func errorStatusBodyReachesTheErrorAndIsNotWrittenToTheDestination() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let destination = directory.appendingPathComponent("report.pdf")
                let request = TestRequest<DownloadedFile>(configuration: testConfiguration()) {
                    ServerRequest(
                        method: .get, baseUrl: server.baseURL, relativeUrl: "/status/404",
                        parameters: .query(["body": #"{"message":"No such report"}"#, "type": "application/json"]),
                        downloadDestination: destination)
                }

                let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

                #expect(error.code == .server && error.statusCode == 404)
                #expect(error.message == "No such report")
                #expect(contents(of: directory).isEmpty)
            }
        }
    }

    @Test func successfulDownloadReplacesAnExistingFile() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let destination = directory.appendingPathComponent("data.bin")
                try Data("old".utf8).write(to: destination)
                let request = TestRequest<URL>(configuration: testConfiguration()) {
                    ServerRequest(
                        method: .get, baseUrl: server.baseURL, relativeUrl: "/download/1000",
                        downloadDestination: destination)
                }

                let url = try await request.performAsync()

                #expect(url == destination)
                #expect(try Data(contentsOf: destination) == downloadPattern(count: 1000))
                #expect(contents(of: directory) == ["data.bin"])
            }
        }
    }

    @Test func stubTransportBodyIsWrittenToTheDestination() async throws {
        try await withScratchDirectory { directory in
            let destination = directory.appendingPathComponent("stub.txt")
            let configuration = testConfiguration(transport: StubTransport.response(body: Data("stubbed".utf8)))
            let request = TestRequest<DownloadedFile>(configuration: configuration) {
                ServerRequest(
                    method: .get, baseUrl: URL(string: "http://stub.invalid")!, downloadDestination: destination)
            }

            let file = try await request.performAsync()

            #expect(file.size == 7)
            #expect(try Data(contentsOf: destination) == Data("stubbed".utf8))
        }
    }

    @Test func downloadedFileModelWithoutADestinationEndsInCantMapping() async throws {
        let configuration = testConfiguration(transport: StubTransport.response(body: Data("x".utf8)))
        let request = TestRequest<DownloadedFile>(configuration: configuration) {
            ServerRequest(method: .get, baseUrl: URL(string: "http://stub.invalid")!)
        }

        let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

        #expect(error.code == .cantMapping)
    }
}

/// A download whose model carries the server's `X-SHA256` header: the custom-mapping path.
struct HashedDownload: Sendable {
    let url: URL
    let serverSHA256: String
}

final class HashedDownloadRequest: BaseServerRequest<HashedDownload>, @unchecked Sendable {
    private let server: URL
    private let count: Int
    private let destination: URL

    init(server: URL, count: Int, destination: URL) {
        self.server = server
        self.count = count
        self.destination = destination
        super.init(configuration: testConfiguration())
    }

    override func createAsyncServerRequest() throws -> ServerRequest {
        ServerRequest(
            method: .get, baseUrl: server, relativeUrl: "/download/\(count)", downloadDestination: destination)
    }

    override func handle(serverResponse: ServerResponse) throws -> HashedDownload {
        guard let url = serverResponse.downloadedFileURL, let hash = serverResponse.headers["X-SHA256"] else {
            throw BaseServerError.cantMapping(keyPath: "<root>", reason: "no file or no X-SHA256")
        }
        return HashedDownload(url: url, serverSHA256: hash)
    }
}
