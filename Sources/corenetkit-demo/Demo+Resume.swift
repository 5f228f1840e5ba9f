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

/// `GET /resumable/:key` into a file, keeping what arrived so it can be resumed.
final class ResumableVideoRequest: BaseServerRequest<DownloadedFile>, @unchecked Sendable {
    private let request: ServerRequest
    init(_ request: ServerRequest) { self.request = request }
    override func createAsyncServerRequest() -> ServerRequest { request }
}

/// Pauses a 20 MB download at 40 % (the server holds the rest until the demo lets it go),
/// keeps the resume data through JSON, and resumes it: the server answers 206 with the rest.
func runResumeDemo(server: TestServer) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "corenetkit-demo-resume-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let count = 20_000_000
    var request = ServerRequest(
        method: .get, baseUrl: API.base, relativeUrl: "/resumable/video?bytes=\(count)&after=8000000&gate=pause",
        downloadDestination: directory.appendingPathComponent("video.mp4"), keepsPartialDownload: true)

    section("Resumable download: pause at 40 %, keep the resume data, resume")
    let download = QuarterPrinter("downloaded")
    let arrived = FirstSignal()
    let context = ResumableVideoRequest(request).perform().onDownloadProgress { progress in
        download.show(progress)
        arrived.fire()
    }
    try await server.waitForArrivals(at: "pause", count: 1)  // the server has sent 40 %
    await arrived.wait()  // and the first bytes are here
    guard let paused = await context.cancelProducingResumeData() else {
        print("nothing to resume")
        return
    }
    server.release("pause")
    let stored = try JSONEncoder().encode(paused)  // an app could keep this across launches
    print(
        "paused: \(paused.bytesReceived) of \(paused.expectedLength ?? -1) bytes kept in "
            + "\(paused.partialFileURL.lastPathComponent), ETag \(paused.entityTag ?? "none"), "
            + "\(stored.count) bytes of JSON")

    request.resumeData = try JSONDecoder().decode(DownloadResumeData.self, from: stored)
    let resumed = QuarterPrinter("resumed, downloaded")
    let file = try await ResumableVideoRequest(request).perform()
        .onDownloadProgress { resumed.show($0) }
        .value
    print(
        "status \(file.statusCode): \(file.size) bytes in \(file.url.lastPathComponent); "
            + "the server sent only the missing \(count - Int(paused.bytesReceived)) bytes")
}

/// Wakes one waiter the first time it fires.
private final class FirstSignal: @unchecked Sendable {  // safe: state is touched only under `lock`
    private let lock = NSLock()
    private var fired = false
    private var waiter: CheckedContinuation<Void, Never>?

    func fire() {
        lock.lock()
        let waiter = fired ? nil : self.waiter
        fired = true
        self.waiter = nil
        lock.unlock()
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if fired {
                lock.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
