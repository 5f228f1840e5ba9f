//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Dispatch
import Foundation
import Testing

@testable import CoreNetKit

/// Upload and download progress through `map` and `flatMap` contexts.
@Suite(.timeLimit(.minutes(3))) struct ChainedProgressTests {
    private func progress(_ completed: Int64, of total: Int64) -> TransferProgress {
        TransferProgress(completedBytes: completed, totalBytes: total)
    }

    @Test func mapForwardsUploadAndDownloadProgressEndingAtOneBeforeSuccess() async throws {
        try await withTestServer { server in
            var form = MultipartData()
            form.append(Data(repeating: 7, count: 300_000), name: "blob", filename: "blob.bin")
            let queue = DispatchQueue(label: "tests.progress.map")
            let mapped = TestRequest<UploadReport>(configuration: testConfiguration(queue: queue)) { [form] in
                server.post("/upload", form)
            }.perform().map { $0.totalBytes }
            let log = TransferLog(mapped)

            _ = try await mapped.value
            await drain(queue)

            #expect(log.uploads.last?.fraction == 1.0)
            #expect(log.downloads.last?.fraction == 1.0)
            #expect(isMonotonic(log.uploads))
            #expect(log.handlersOffQueue == 0)
            #expect(log.afterTerminal.isEmpty)
        }
    }

    @Test func mapGivesALateChainTheLatestProgressAtOnce() async throws {
        let queue = DispatchQueue(label: "tests.progress.map-late")
        let source = HandleRequestContext<Int>(queue: queue)
        source.emitProgress(progress(5, of: 10), for: .download)

        let mapped = source.map { $0 + 1 }
        let log = TransferLog(mapped)
        source.emitProgress(progress(10, of: 10), for: .download)
        source.emit(data: 1)
        _ = try await mapped.value
        await drain(queue)

        #expect(log.downloads == [progress(5, of: 10), progress(10, of: 10)])
        #expect(log.afterTerminal.isEmpty)
    }

    @Test func flatMapDeliversTheRunningStagesProgressAndTheSecondStartsAgain() async throws {
        let queue = DispatchQueue(label: "tests.progress.flat")
        let first = HandleRequestContext<Int>(queue: queue)
        let second = HandleRequestContext<String>(queue: queue)
        let chained = first.flatMap { _ in second }
        let log = TransferLog(chained)

        first.emitProgress(progress(50, of: 100), for: .download)
        first.emitProgress(progress(100, of: 100), for: .download)
        first.emit(data: 1)
        second.emitProgress(progress(10, of: 1000), for: .download)
        second.emitProgress(progress(1000, of: 1000), for: .download)
        second.emit(data: "done")
        _ = try await chained.value
        await drain(queue)

        #expect(
            log.downloads == [
                progress(50, of: 100), progress(100, of: 100), progress(10, of: 1000), progress(1000, of: 1000),
            ])
        #expect(log.afterTerminal.isEmpty)
    }

    @Test func flatMapOfAnUploadThenADownloadReportsBothRequestsProgress() async throws {
        try await withTestServer { server in
            var form = MultipartData()
            form.append(Data(repeating: 1, count: 200_000), name: "blob", filename: "blob.bin")
            let queue = DispatchQueue(label: "tests.progress.flat-real")
            let configuration = testConfiguration(queue: queue)
            let chained = TestRequest<UploadReport>(configuration: configuration) { [form] in
                server.post("/upload", form)
            }.perform().flatMap { _ in
                TestRequest<Data>(configuration: configuration) { server.get("/download/500000") }.perform()
            }
            let log = TransferLog(chained)

            let body = try await chained.value
            await drain(queue)

            #expect(body.count == 500_000)
            #expect(log.uploads.last?.fraction == 1.0)
            #expect(log.downloads.last == progress(500_000, of: 500_000))
            #expect(log.downloads.contains { $0.totalBytes != 500_000 })
            #expect(log.afterTerminal.isEmpty)
        }
    }
}
