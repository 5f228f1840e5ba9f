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
/// no progress passes afterwards and every scratch file is removed at once — except the partial
/// file of a download that keeps it (``ServerRequest/keepsPartialDownload``), which survives
/// until the transport has stopped writing and then becomes ``resumeData`` (see
/// RequestTransfer+Resume.swift).
final class RequestTransfer: Sendable {
    typealias Sink = @Sendable (TransferProgress, TransferDirection) -> Void

    struct State {
        var sink: Sink?
        var upload = ProgressThrottle<WallInstant>()
        var download = ProgressThrottle<WallInstant>()
        var placedDownload: URL?
        var ended = false
        /// Set by ``cancel()`` of a download that keeps its partial file: progress stops, the
        /// files stay until ``finish(succeeded:)``.
        var cancelled = false
        /// Whether a failed download keeps its bytes for a resume.
        var keepsPartial = false
        /// Whether the request's resume data was looked at (once, at the first attempt).
        var adoptedResumeData = false
        /// The bytes kept from earlier attempts (or the resume data), if any.
        var partial: DownloadResumeData?
        /// Where the current attempt asked the body to start (its `Range`), 0 for the whole.
        var requestedOffset: Int64 = 0
        /// The current attempt's response head, once it arrived.
        var head: ResponseHead?
        /// Added to the transport's download progress: the bytes a resumed attempt skipped.
        var downloadOffset: Int64 = 0
        /// Made by ``finish(succeeded:)`` from the kept partial file.
        var resumeData: DownloadResumeData?
    }

    let state = Locked(State())
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
    /// read and write — and points the result's progress callbacks at this transfer. A download
    /// that resumes gets its `Range` and `If-Range` here.
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
        if Self.destination(of: request) != nil {
            prepareDownload(&transportRequest, for: request)
        }
        // Without a sink (performAsync: no context to report to) nobody can see progress, so
        // the transport is spared a lock and a clock read per chunk.
        if state.withLock({ $0.sink != nil }) { observeProgress(of: &transportRequest) }
        return transportRequest
    }

    /// Counts what goes out of `request`'s body as upload progress of this transfer.
    private func observeProgress(of request: inout TransportRequest) {
        request.body.observer = UploadObserver { [self] sent, expected in
            report(.upload, completed: sent, expected: expected)
        }
    }

    /// Whether download progress has anyone to go to.
    var reportsProgress: Bool { state.withLock { $0.sink != nil } }

    /// Where `request`'s body goes when it is a download.
    static func destination(of request: ServerRequest) -> URL? {
        request.downloadDestination ?? request.resumeData?.destination
    }

    func report(_ direction: TransferDirection, completed: Int64, expected: Int64) {
        let now = WallInstant(clock.currentDate)
        let (progress, sink): (TransferProgress?, Sink?) = state.withLock { state in
            guard !state.ended, !state.cancelled, state.sink != nil else { return (nil, nil) }
            switch direction {
            case .upload: return (state.upload.offer(completed: completed, expected: expected, now: now), state.sink)
            case .download:
                // A resumed attempt counts from the bytes it skipped.
                let offset = state.downloadOffset
                let total = expected >= 0 ? expected + offset : expected
                return (state.download.offer(completed: completed + offset, expected: total, now: now), state.sink)
            }
        }
        if let progress, let sink { sink(progress, direction) }
    }

    /// Sends `request` through `transport` and reads its body with `reader`. A download goes to
    /// a scratch file next to its destination and is moved into place when it arrived with a 2xx
    /// status (a `206` that resumes is appended to the kept partial file first); the streamed
    /// body and the scratch file are removed before this returns or throws, unless a failed
    /// download keeps its bytes.
    func send(
        _ request: TransportRequest, for serverRequest: ServerRequest, through transport: any Transport,
        reader: BodyReader
    ) async throws -> ReceivedResponse {
        defer { temporaryFiles.removeAll() }
        guard let destination = Self.destination(of: serverRequest) else {
            let response = try await transport.send(request)
            reader.activity?.touch()
            return try await Exchange.read(response, for: serverRequest, reader: reader)
        }
        let directory = destination.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BaseServerError(
                code: .fileAccess, message: "could not create the directory \(directory.path)",
                underlyingError: error)
        }
        var request = request
        // A range the server cannot serve (416, or a 206 from another byte) starts over, once.
        for pass in 0..<2 {
            if pass > 0 { dropResume(from: &request) }
            let scratch = try temporaryFiles.create(
                in: directory, name: ".\(destination.lastPathComponent).\(UUID().uuidString).part",
                ownerOnly: false)
            let keeps: Bool = state.withLock { state in
                state.head = nil
                state.downloadOffset = 0
                return state.keepsPartial
            }
            // A kept scratch file must outlive a cancellation (which removes the tracked
            // files). This method removes it itself.
            if keeps { temporaryFiles.forget(scratch) }
            let received: ReceivedResponse
            do {
                let response = try await transport.send(request)
                reader.activity?.touch()
                receivedHead(status: response.statusCode, headers: response.headers)
                if (200..<300).contains(response.statusCode) {
                    let offset = state.withLock { $0.downloadOffset }
                    received = try await reader.write(response, to: scratch, offset: offset)
                } else {
                    received = try await reader.collect(response)
                }
            } catch {
                keepAfterFailure(scratch, url: request.url, destination: destination)
                throw error
            }
            switch try resumeOutcome(of: received.statusCode) {
            case .notADownload:
                try? FileManager.default.removeItem(at: scratch)
                return received
            case .startOver:
                try? FileManager.default.removeItem(at: scratch)
                continue
            case .appended:
                try append(scratch, inMemoryBody: Data())
                try placePartial(at: destination)
                var placed = received
                placed.file = destination
                return placed
            case .whole:
                dropPartial()
                do {
                    try move(scratch, to: destination)
                    temporaryFiles.forget(scratch)
                } catch {
                    try? FileManager.default.removeItem(at: scratch)
                    throw error
                }
                var placed = received
                placed.file = destination
                return placed
            }
        }
        throw BaseServerError(
            code: .transport, statusCode: 416, message: "the server could not serve the download from its start")
    }

    /// Renames `file` to `destination` unless the transfer ended or was cancelled meanwhile.
    func move(_ file: URL, to destination: URL) throws {
        let placed: Bool = state.withLock { state in
            guard !state.ended, !state.cancelled else { return false }
            guard rename(file.path, destination.path) == 0 else { return false }
            state.placedDownload = destination
            return true
        }
        guard placed else {
            if state.withLock({ $0.ended || $0.cancelled }) { throw CancellationError() }
            throw BaseServerError(code: .fileAccess, message: "could not move the download to \(destination.path)")
        }
    }

    /// Ends the transfer: no more progress, scratch files removed, and the downloaded file too
    /// unless the request succeeded. On success, each direction's closing `1.0` goes to the sink
    /// first.
    func finish(succeeded: Bool) {
        let (finals, sink, placed): ([(TransferProgress, TransferDirection)], Sink?, URL?) = state.withLock { state in
            guard !state.ended else { return ([], nil, nil) }
            state.ended = true
            guard succeeded, !state.cancelled else { return ([], nil, state.placedDownload) }
            var finals: [(TransferProgress, TransferDirection)] = []
            if let upload = state.upload.finish() { finals.append((upload, .upload)) }
            if let download = state.download.finish() { finals.append((download, .download)) }
            return (finals, state.sink, nil)
        }
        temporaryFiles.close()
        if let placed { try? FileManager.default.removeItem(at: placed) }
        keepOrRemovePartial(succeeded: succeeded)
        if let sink { for (progress, direction) in finals { sink(progress, direction) } }
    }

    /// Ends the transfer because the request was cancelled: called from the cancelling thread,
    /// so the scratch files are gone before the context reports the cancellation. A download
    /// that keeps its partial file only stops its progress here: the transport may still be
    /// writing, so the file becomes resume data in ``finish(succeeded:)``, after it stopped.
    func cancel() {
        let keeps: Bool = state.withLock { state in
            guard state.keepsPartial else { return false }
            state.cancelled = true
            return true
        }
        guard keeps else {
            finish(succeeded: false)
            return
        }
        temporaryFiles.close()
    }

    /// The resume data made when the transfer ended without success; `nil` otherwise.
    var resumeData: DownloadResumeData? { state.withLock { $0.resumeData } }
}

/// Where a request without a transfer of its own finds the one that reports its progress, once
/// somebody watches it (a ``RequestBroadcast`` whose contexts got a progress handler).
protocol ProgressWatch: AnyObject, Sendable {
    /// The transfer progress goes through; `nil` while nobody watches.
    func watchedTransfer() -> RequestTransfer?
}
