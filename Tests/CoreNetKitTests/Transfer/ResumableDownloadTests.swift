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

@Suite(.timeLimit(.minutes(3))) struct ResumableDownloadTests {
    @Test func cancelledFiftyMegabyteDownloadResumesFromItsBytesToTheServersSHA256() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let count = 50 * 1024 * 1024
                let fortyPercent = count * 2 / 5
                let path = "/resumable/big?bytes=\(count)&after=\(fortyPercent)&gate=resume-big"
                let destination = directory.appendingPathComponent("big.bin")
                let configuration = testConfiguration()
                let context = keepingDownload(server, path, to: destination, configuration: configuration).perform()
                let log = TransferLog(context)
                try await server.waitForArrivals(at: "resume-big", count: 1)
                _ = try await log.firstDownloadProgress()

                let kept = try await withTimeout(30) { await context.cancelProducingResumeData() }
                server.release("resume-big")

                let data = try #require(kept)
                #expect(data.bytesReceived > 0 && data.bytesReceived <= Int64(fortyPercent))
                #expect(data.expectedLength == Int64(count))
                #expect(data.entityTag == "\"big-v1-\(count)\"")
                #expect(RequestTransfer.size(of: data.partialFileURL) == data.bytesReceived)
                #expect(!FileManager.default.fileExists(atPath: destination.path))
                #expect(context.isCancelled)

                // Kept across a launch: through JSON and back.
                let stored = try JSONEncoder().encode(data)
                let restored = try JSONDecoder().decode(DownloadResumeData.self, from: stored)
                let resumed = TestRequest<DownloadedFile>(configuration: configuration) {
                    ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: path, resumeData: restored)
                }.perform()
                let resumedLog = TransferLog(resumed)
                let file = try await withTimeout(120) { try await resumed.value }
                await withCheckedContinuation { done in resumed.onCompleted { _ in done.resume() } }

                #expect(file.statusCode == 206)
                #expect(file.url == destination)
                #expect(file.size == Int64(count))
                #expect(try sha256(of: destination) == expectedSHA256(count: count, version: 1))
                let downloads = resumedLog.downloads
                #expect(downloads.first?.completedBytes == data.bytesReceived)
                #expect(downloads.first?.totalBytes == Int64(count))
                #expect(isMonotonic(downloads))
                #expect(downloads.last?.fraction == 1.0)
                #expect(contents(of: directory) == ["big.bin"])
            }
        }
    }

    @Test func fileChangedOnTheServerBetweenAttemptsStartsOver() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let count = 4_000_000
                let path = "/resumable/doc?bytes=\(count)&after=1000000&gate=resume-doc"
                let destination = directory.appendingPathComponent("doc.bin")
                let configuration = testConfiguration()
                let context = keepingDownload(server, path, to: destination, configuration: configuration).perform()
                let log = TransferLog(context)
                try await server.waitForArrivals(at: "resume-doc", count: 1)
                _ = try await log.firstDownloadProgress()
                let data = try #require(try await withTimeout(30) { await context.cancelProducingResumeData() })
                server.release("resume-doc")
                server.replaceResumable("doc")

                let file = try await withTimeout(60) {
                    try await TestRequest<DownloadedFile>(configuration: configuration) {
                        ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: path, resumeData: data)
                    }.performAsync()
                }

                #expect(file.statusCode == 200)
                #expect(file.size == Int64(count))
                #expect(try sha256(of: destination) == expectedSHA256(count: count, version: 2))
                #expect(contents(of: directory) == ["doc.bin"])
            }
        }
    }

    @Test func droppedConnectionPutsResumeDataOnTheErrorAndTheResumeCompletesTheFile() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let count = 3_000_000
                let destination = directory.appendingPathComponent("nested/report.bin")
                let configuration = testConfiguration()
                let failing = keepingDownload(
                    server, "/resumable/report?bytes=\(count)&after=1200000&drop=1&validator=date", to: destination,
                    configuration: configuration)

                let error = try await #require(throws: BaseServerError.self) { try await failing.performAsync() }
                let data = try #require(error.resumeData)
                #expect(data.bytesReceived > 0 && data.bytesReceived <= 1_200_000)
                #expect(data.entityTag == nil && data.lastModified != nil)
                #expect(data.url.absoluteString.contains("drop=1"))

                // The same file at a re-signed URL (here: without the fault) resumes from the bytes.
                let file = try await withTimeout(60) {
                    try await TestRequest<DownloadedFile>(configuration: configuration) {
                        ServerRequest(
                            method: .get, baseUrl: server.baseURL,
                            relativeUrl: "/resumable/report?bytes=\(count)&validator=date", resumeData: data)
                    }.performAsync()
                }
                #expect(file.statusCode == 206)
                #expect(try sha256(of: destination) == expectedSHA256(count: count, version: 1))
                #expect(contents(of: destination.deletingLastPathComponent()) == ["report.bin"])
            }
        }
    }

    @Test func withoutAStrongValidatorNothingIsKept() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let request = keepingDownload(
                    server, "/resumable/weak?bytes=2000000&after=500000&drop=1&validator=weak",
                    to: directory.appendingPathComponent("weak.bin"))

                let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

                #expect(error.resumeData == nil)
                #expect(contents(of: directory).isEmpty)
            }
        }
    }

    @Test func cancelledTaskOfPerformAsyncCarriesTheResumeData() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let request = keepingDownload(
                    server, "/resumable/task?bytes=2000000&after=700000&gate=resume-task",
                    to: directory.appendingPathComponent("task.bin"))
                let task = Task { try await request.performAsync() }
                try await server.waitForArrivals(at: "resume-task", count: 1)
                task.cancel()
                let result = try await withTimeout(30) { await task.result }
                server.release("resume-task")

                guard case .failure(let failure) = result, let error = failure as? BaseServerError else {
                    Issue.record("expected a BaseServerError, got \(result)")
                    return
                }
                #expect(error.code == .cancelled)
                // The first bytes may still be in flight when the Task is cancelled: then there is
                // nothing to resume and nothing is left on disk.
                if let data = error.resumeData {
                    #expect(RequestTransfer.size(of: data.partialFileURL) == data.bytesReceived)
                    #expect(contents(of: directory) == [data.partialFileURL.lastPathComponent])
                } else {
                    #expect(contents(of: directory).isEmpty)
                }
            }
        }
    }

    @Test func resumeDataForAFileAlreadyCompleteGetsA416AndStartsOver() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let count = 100_000
                let partial = directory.appendingPathComponent(".done.bin.part")
                try expectedBytes(count: count, version: 1).write(to: partial)
                let data = DownloadResumeData(
                    url: server.baseURL, destination: directory.appendingPathComponent("done.bin"),
                    partialFileURL: partial, bytesReceived: Int64(count), expectedLength: Int64(count),
                    entityTag: "\"done-v1-\(count)\"")

                let file = try await withTimeout(30) {
                    try await TestRequest<DownloadedFile>(configuration: testConfiguration()) {
                        ServerRequest(
                            method: .get, baseUrl: server.baseURL, relativeUrl: "/resumable/done?bytes=\(count)",
                            resumeData: data)
                    }.performAsync()
                }

                #expect(file.statusCode == 200)
                #expect(server.hits("GET", "/resumable/done") == 2)
                #expect(try sha256(of: file.url) == expectedSHA256(count: count, version: 1))
                #expect(contents(of: directory) == ["done.bin"])
            }
        }
    }

    @Test func resumeDataWhosePartialFileIsGoneStartsOver() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let count = 200_000
                let data = DownloadResumeData(
                    url: server.baseURL, destination: directory.appendingPathComponent("gone.bin"),
                    partialFileURL: directory.appendingPathComponent(".gone.bin.part"), bytesReceived: 1000,
                    entityTag: "\"gone-v1-\(count)\"")

                let file = try await withTimeout(30) {
                    try await TestRequest<DownloadedFile>(configuration: testConfiguration()) {
                        ServerRequest(
                            method: .get, baseUrl: server.baseURL, relativeUrl: "/resumable/gone?bytes=\(count)",
                            resumeData: data)
                    }.performAsync()
                }

                #expect(file.statusCode == 200)
                #expect(try sha256(of: file.url) == expectedSHA256(count: count, version: 1))
            }
        }
    }

    @Test func retriedDownloadGoesOnFromTheBytesOfTheFailedAttempt() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let count = 3_000_000
                let configuration = testConfiguration { $0.retryPolicy = RetryPolicy(jitter: { 0 }) }
                let file = try await withTimeout(60) {
                    try await keepingDownload(
                        server, "/resumable/retried?bytes=\(count)&after=1000000&drops=1",
                        to: directory.appendingPathComponent("retried.bin"), configuration: configuration
                    ).performAsync()
                }

                // The second attempt asked only for the bytes after those the first one kept.
                #expect(file.statusCode == 206)
                #expect(server.hits("GET", "/resumable/retried") == 2)
                #expect(try sha256(of: file.url) == expectedSHA256(count: count, version: 1))
                #expect(contents(of: directory) == ["retried.bin"])
            }
        }
    }

    @Test func cancelProducingResumeDataCallsBackOnceOnTheCallbackQueue() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let queue = DispatchQueue(label: "tests.resume.callbacks")
                let key = DispatchSpecificKey<Bool>()
                queue.setSpecific(key: key, value: true)
                let context = keepingDownload(
                    server, "/resumable/callback?bytes=2000000&after=600000&gate=resume-callback",
                    to: directory.appendingPathComponent("callback.bin"), configuration: testConfiguration(queue: queue)
                ).perform()
                let log = TransferLog(context)
                let events = EventLog(context)
                try await server.waitForArrivals(at: "resume-callback", count: 1)
                _ = try await log.firstDownloadProgress()
                let calls = Locked(0)

                let (data, onQueue) = try await withTimeout(30) {
                    await withCheckedContinuation { continuation in
                        context.cancel { data in
                            calls.withLock { $0 += 1 }
                            continuation.resume(returning: (data, DispatchQueue.getSpecific(key: key) == true))
                        }
                    }
                }
                server.release("resume-callback")

                guard case .cancel = try await events.waitForTerminal() else {
                    Issue.record("expected cancel")
                    return
                }
                #expect(onQueue)
                #expect(calls.withLock { $0 } == 1)
                let kept = try #require(data)
                #expect(contents(of: directory) == [kept.partialFileURL.lastPathComponent])
                kept.removePartialFile()
                #expect(contents(of: directory).isEmpty)
            }
        }
    }

    @Test func plainCancelOfADownloadThatKeepsItsBytesStillRemovesThePartialFile() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                let context = keepingDownload(
                    server, "/resumable/plain?bytes=2000000&after=600000&gate=resume-plain",
                    to: directory.appendingPathComponent("plain.bin")
                ).perform()
                let log = TransferLog(context)
                try await server.waitForArrivals(at: "resume-plain", count: 1)
                _ = try await log.firstDownloadProgress()
                #expect(contents(of: directory).count == 1)

                context.cancel()
                server.release("resume-plain")

                // The partial file goes once the transport has stopped writing to it.
                try await withTimeout(30) {
                    while !contents(of: directory).isEmpty { await Task.yield() }
                }
                #expect(contents(of: directory).isEmpty)
            }
        }
    }

    @Test func resumeDataRoundTripsThroughJSON() throws {
        let data = DownloadResumeData(
            url: URL(string: "https://files.example.com/a.zip?sig=1")!,
            destination: URL(fileURLWithPath: "/tmp/a.zip"), partialFileURL: URL(fileURLWithPath: "/tmp/.a.zip.part"),
            bytesReceived: 12_345, expectedLength: 99_999, entityTag: "\"abc\"",
            lastModified: "Tue, 14 Nov 2023 22:13:20 GMT")

        let decoded = try JSONDecoder().decode(DownloadResumeData.self, from: JSONEncoder().encode(data))

        #expect(decoded == data)
        #expect(decoded.ifRangeValidator == "\"abc\"")
        var weak = data
        weak.entityTag = "W/\"abc\""
        #expect(weak.ifRangeValidator == "Tue, 14 Nov 2023 22:13:20 GMT")
    }
}

/// The bytes of version `version` of a `/resumable` file: the download pattern shifted by it.
private func expectedBytes(count: Int, version: Int) -> Data {
    downloadPattern(count: count + version).dropFirst(version)
}

private func expectedSHA256(count: Int, version: Int) -> String {
    Crypto.SHA256.hash(data: expectedBytes(count: count, version: version)).hex
}

private func sha256(of file: URL) throws -> String {
    var hasher = Crypto.SHA256()
    let handle = try FileHandle(forReadingFrom: file)
    defer { try? handle.close() }
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        hasher.update(data: chunk)
    }
    return hasher.finalize().hex
}

/// A download of `path` into `destination` that keeps its bytes when it fails.
private func keepingDownload(
    _ server: TestServer, _ path: String, to destination: URL,
    configuration: NetworkConfiguration = testConfiguration()
) -> TestRequest<DownloadedFile> {
    TestRequest<DownloadedFile>(configuration: configuration) {
        ServerRequest(
            method: .get, baseUrl: server.baseURL, relativeUrl: path, downloadDestination: destination,
            keepsPartialDownload: true)
    }
}
