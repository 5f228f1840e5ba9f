//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one request moves besides its description: the progress of its bodies, its scratch
/// files (a streamed multipart body, a partial download) and the file it downloaded.
///
/// One per ``RequestPipeline``. The transport's raw progress callbacks are throttled here and
/// handed to a sink (the request's broadcast). ``finish(succeeded:)`` and ``cancel()`` end it:
/// no progress passes afterwards and every scratch file is removed at once.
final class RequestTransfer: Sendable {
    typealias Sink = @Sendable (TransferProgress, TransferDirection) -> Void

    private struct State {
        var sink: Sink?
        var upload = ProgressThrottle<WallInstant>()
        var download = ProgressThrottle<WallInstant>()
        var placedDownload: URL?
        var ended = false
    }

    private let state = Locked(State())
    /// Where progress throttling reads the time.
    private let clock: any NetworkClock

    init(clock: any NetworkClock) {
        self.clock = clock
    }
    /// The request's scratch files; the encoder creates streamed bodies here.
    let temporaryFiles = TemporaryFiles()

    /// Sends progress to `sink` from now on.
    func connect(_ sink: @escaping Sink) {
        state.withLock { $0.sink = sink }
    }

    /// Runs `encode` — off the cooperative thread pool for a multipart body, whose files it may
    /// read and write — and points the result's progress callbacks at this transfer.
    func encode(
        _ request: ServerRequest,
        _ encode: @escaping @Sendable (ServerRequest) throws -> TransportRequest
    ) async throws -> TransportRequest {
        var transportRequest: TransportRequest
        if case .multipart = request.parameters {
            transportRequest = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(with: Result { try encode(request) }) }
            }
        } else {
            transportRequest = try encode(request)
        }
        // Without a sink (performAsync: no context to report to) nobody can see progress, so
        // the transport is spared a lock and a clock read per chunk.
        if state.withLock({ $0.sink != nil }) { observeProgress(of: &transportRequest) }
        return transportRequest
    }

    /// Points `request`'s progress callbacks at this transfer.
    private func observeProgress(of request: inout TransportRequest) {
        request.uploadProgress = { [self] sent, expected in report(.upload, completed: sent, expected: expected) }
        request.downloadProgress = { [self] received, expected in
            report(.download, completed: received, expected: expected)
        }
    }

    private func report(_ direction: TransferDirection, completed: Int64, expected: Int64) {
        let now = WallInstant(clock.currentDate)
        let (progress, sink): (TransferProgress?, Sink?) = state.withLock { state in
            guard !state.ended, state.sink != nil else { return (nil, nil) }
            switch direction {
            case .upload: return (state.upload.offer(completed: completed, expected: expected, now: now), state.sink)
            case .download:
                return (state.download.offer(completed: completed, expected: expected, now: now), state.sink)
            }
        }
        if let progress, let sink { sink(progress, direction) }
    }

    /// Sends `request` through `transport`. A download goes to a partial file next to its
    /// destination and is moved into place when it arrived with a 2xx status; the streamed
    /// body and the partial file are removed before this returns or throws.
    ///
    /// - Returns: the response and the downloaded file's URL, if one was placed.
    func send(_ request: TransportRequest, through transport: any Transport) async throws -> (TransportResponse, URL?) {
        defer { temporaryFiles.removeAll() }
        guard let destination = request.downloadDestination else {
            return (try await transport.send(request), nil)
        }
        var request = request
        let directory = destination.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BaseServerError(
                code: .fileAccess, message: "could not create the directory \(directory.path)",
                underlyingError: error)
        }
        let partial = try temporaryFiles.create(
            in: directory, name: ".\(destination.lastPathComponent).\(UUID().uuidString).part",
            ownerOnly: false)
        request.downloadDestination = partial
        let response = try await transport.send(request)
        guard (200..<300).contains(response.statusCode) else { return (response, nil) }
        try place(partial, at: destination, inMemoryBody: response.body)
        return (response, destination)
    }

    /// Moves the finished partial file to `destination`, replacing what is there; a transport
    /// that kept the body in memory (``StubTransport``) has it written first.
    private func place(_ partial: URL, at destination: URL, inMemoryBody body: Data) throws {
        do {
            if !body.isEmpty { try body.write(to: partial) }
        } catch {
            throw BaseServerError(code: .fileAccess, message: "could not write \(partial.path)", underlyingError: error)
        }
        let placed: Bool = state.withLock { state in
            guard !state.ended else { return false }
            guard rename(partial.path, destination.path) == 0 else { return false }
            state.placedDownload = destination
            return true
        }
        guard placed else {
            if state.withLock({ $0.ended }) { throw CancellationError() }
            throw BaseServerError(code: .fileAccess, message: "could not move the download to \(destination.path)")
        }
        temporaryFiles.forget(partial)
    }

    /// Ends the transfer: no more progress, scratch files removed, and the downloaded file too
    /// unless the request succeeded. On success, each direction's closing `1.0` goes to the sink
    /// first.
    func finish(succeeded: Bool) {
        let (finals, sink, placed): ([(TransferProgress, TransferDirection)], Sink?, URL?) = state.withLock { state in
            guard !state.ended else { return ([], nil, nil) }
            state.ended = true
            guard succeeded else { return ([], nil, state.placedDownload) }
            var finals: [(TransferProgress, TransferDirection)] = []
            if let upload = state.upload.finish() { finals.append((upload, .upload)) }
            if let download = state.download.finish() { finals.append((download, .download)) }
            return (finals, state.sink, nil)
        }
        temporaryFiles.close()
        if let placed { try? FileManager.default.removeItem(at: placed) }
        if let sink { for (progress, direction) in finals { sink(progress, direction) } }
    }

    /// Ends the transfer because the request was cancelled: called from the cancelling thread,
    /// so the scratch files are gone before the context reports the cancellation.
    func cancel() {
        finish(succeeded: false)
    }
}
