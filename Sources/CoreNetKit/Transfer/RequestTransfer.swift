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

/// One request's body progress, scratch files (streamed multipart body, partial download) and downloaded file; one
/// per ``RequestPipeline``. Raw progress is throttled and handed to a sink (the request's broadcast).
///
/// ``finish(succeeded:)`` and ``cancel()`` end it: no more progress, scratch files removed at once — except a kept
/// partial download (``ServerRequest/keepsPartialDownload``), which waits until the transport stopped writing and
/// then becomes ``resumeData``. Decisions are made under the lock by ``StateMachine``; files and the sink are
/// handled after unlocking.
final class RequestTransfer: Sendable {
    typealias Sink = @Sendable (TransferProgress, TransferDirection) -> Void

    let state = Locked(StateMachine())
    private let clock: any NetworkClock

    init(clock: any NetworkClock) {
        self.clock = clock
    }
    /// The request's scratch files; the encoder creates streamed bodies here.
    let temporaryFiles = TemporaryFiles()

    func connect(_ sink: @escaping Sink) {
        state.withLock { $0.connect(sink) }
    }

    /// Runs `encode` (off the cooperative pool for a multipart body, which does file I/O), adds a resumed download's
    /// `Range`/`If-Range`, and points upload progress at this transfer.
    func encode(
        _ request: ServerRequest,
        _ encode: @escaping @Sendable (ServerRequest) throws -> TransportRequest
    ) async throws -> TransportRequest {
        var transportRequest: TransportRequest
        if case .multipart = request.parameters {
            transportRequest = try await DispatchQueue.global().run { try encode(request) }
        } else {
            transportRequest = try encode(request)
        }
        if Self.destination(of: request) != nil {
            prepareDownload(&transportRequest, for: request)
        }
        // Without a sink (performAsync) nobody sees progress: spare the transport a lock and clock read per chunk.
        if reportsProgress {
            transportRequest.body.observer = UploadObserver { [self] sent, expected in
                report(.upload, completed: sent, expected: expected)
            }
        }
        return transportRequest
    }

    var reportsProgress: Bool { state.withLock { $0.reportsProgress } }

    /// Where `request`'s body goes when it is a download.
    static func destination(of request: ServerRequest) -> URL? {
        request.downloadDestination ?? request.resumeData?.destination
    }

    func report(_ direction: TransferDirection, completed: Int64, expected: Int64) {
        let now = WallInstant(clock.currentDate)
        let action = state.withLock { $0.progress(direction, completed: completed, expected: expected, now: now) }
        if case .deliver(let progress, let sink) = action { sink(progress, direction) }
    }

    /// Sends `request` with `open` and reads its body with `reader`. A download goes to a scratch file next to its
    /// destination, moved into place on a 2xx (a resuming `206` is appended to the kept partial file first); scratch
    /// files are removed before this returns or throws, unless a failed download keeps its bytes.
    func send(
        _ request: TransportRequest, for serverRequest: ServerRequest,
        opening open: @Sendable (TransportRequest) async throws -> TransportResponse, reader: BodyReader
    ) async throws -> ReceivedResponse {
        defer { temporaryFiles.removeAll() }
        guard let destination = Self.destination(of: serverRequest) else {
            return try await Exchange.read(open(request), for: serverRequest, reader: reader)
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
            if pass > 0 {  // without the resume headers and the kept bytes: ask for the whole file
                request.setValue(nil, forHTTPHeaderField: "Range")
                request.setValue(nil, forHTTPHeaderField: "If-Range")
                state.withLock { $0.resume.requestedOffset = 0 }
                dropPartial()
            }
            let scratch = try temporaryFiles.create(
                in: directory, name: ".\(destination.lastPathComponent).\(UUID().uuidString).part",
                ownerOnly: false)
            let keeps: Bool = state.withLock { state in
                state.resume.head = nil
                state.resume.downloadOffset = 0
                return state.resume.keepsPartial
            }
            // A kept scratch file must outlive a cancellation (which removes tracked files); this method removes it.
            if keeps { temporaryFiles.forget(scratch) }
            let received: ReceivedResponse
            do {
                let response = try await open(request)
                receivedHead(status: response.statusCode, headers: response.headers)
                if (200..<300).contains(response.statusCode) {
                    let offset = state.withLock { $0.resume.downloadOffset }
                    received = try await reader.write(response, to: scratch, offset: offset)
                } else {
                    received = try await reader.collect(response)
                }
            } catch {
                keepAfterFailure(scratch, url: request.url, destination: destination)
                throw error
            }
            switch state.withLock({ $0.resume.outcome(of: received.statusCode) }) {
            case .notADownload:
                try? FileManager.default.removeItem(at: scratch)
                return received
            case .startOver:
                try? FileManager.default.removeItem(at: scratch)
                continue
            case .appended:
                try append(scratch)
                try placePartial(at: destination)
            case .whole:
                dropPartial()
                do {
                    try move(scratch, to: destination)
                    temporaryFiles.forget(scratch)
                } catch {
                    try? FileManager.default.removeItem(at: scratch)
                    throw error
                }
            }
            var placed = received
            placed.file = destination
            return placed
        }
        throw BaseServerError(
            code: .transport, statusCode: 416, message: "the server could not serve the download from its start")
    }

    /// Renames `file` to `destination`, unless the transfer ended or was cancelled before or meanwhile: then it
    /// throws `CancellationError` and leaves nothing at `destination`.
    func move(_ file: URL, to destination: URL) throws {
        guard state.withLock({ $0.place(file, at: destination) }) == .rename else { throw CancellationError() }
        let renamed = rename(file.path, destination.path) == 0
        switch state.withLock({ $0.placed(renamed: renamed) }) {
        case .done:
            guard renamed else {
                throw BaseServerError(code: .fileAccess, message: "could not move the download to \(destination.path)")
            }
        case .interrupted(let undo, let removePartial):
            if let undo {
                let movedBack = undo.moveBackTo.map { rename(undo.destination.path, $0.path) == 0 } ?? false
                if !movedBack { try? FileManager.default.removeItem(at: undo.destination) }
            }
            removePartial?.removePartialFile()
            throw CancellationError()
        }
    }

    /// Ends the transfer: no more progress; scratch files removed, the downloaded file too unless it succeeded (then
    /// each direction's closing `1.0` goes to the sink).
    func finish(succeeded: Bool) {
        let action = state.withLock { $0.finish(succeeded: succeeded) }
        if action.closeFiles { temporaryFiles.close() }
        if let placed = action.removePlaced { try? FileManager.default.removeItem(at: placed) }
        action.removePartial?.removePartialFile()
        if let sink = action.sink { for (progress, direction) in action.finals { sink(progress, direction) } }
    }

    /// Called from the cancelling thread, so scratch files are gone before the context reports the cancellation. A
    /// kept partial download only stops progress here: the transport may still be writing, so the file becomes
    /// resume data in ``finish(succeeded:)``.
    func cancel() {
        switch state.withLock({ $0.cancel() }) {
        case .finish: finish(succeeded: false)
        case .keepFiles: temporaryFiles.close()
        case .none: break
        }
    }

    /// The resume data made when the transfer ended without success; `nil` otherwise.
    var resumeData: DownloadResumeData? { state.withLock { $0.resumeData } }
}

/// Where a request's progress goes: its own transfer, or the one a ``RequestBroadcast`` makes once a context
/// watches. An enum, not a protocol: one word copied with a retain, no existential value witnesses.
enum ProgressWatch: Sendable {
    case transfer(RequestTransfer)
    case broadcast(RequestBroadcast)

    /// The transfer progress goes through; `nil` while nobody watches.
    func watchedTransfer() -> RequestTransfer? {
        switch self {
        case .transfer(let transfer): return transfer
        case .broadcast(let broadcast): return broadcast.watchedTransfer()
        }
    }
}

/// One request's scratch files (streamed bodies, partial downloads), removed together. After ``close()`` every
/// file is gone and ``create(in:name:ownerOnly:)`` refuses, so a request cancelled while encoding leaves nothing.
final class TemporaryFiles: Sendable {
    private struct State {
        var files: Set<URL> = []
        var closed = false
    }
    private let state = Locked(State())

    /// Creates and tracks an empty file; `ownerOnly` (for bodies) makes it `0600`. Throws `CancellationError` after
    /// ``close()``, `fileAccess` on failure. Created under the lock so a concurrent ``close()`` comes either first
    /// (this throws) or after (it removes the file).
    func create(in directory: URL, name: String, ownerOnly: Bool = true) throws -> URL {
        let url = directory.appendingPathComponent(name, isDirectory: false)
        try state.withLock { state in
            guard !state.closed else { throw CancellationError() }
            let attributes: [FileAttributeKey: Any]? = ownerOnly ? [.posixPermissions: 0o600] : nil
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: attributes) else {
                throw BaseServerError(
                    code: .fileAccess, message: "could not create a temporary file in \(directory.path)")
            }
            state.files.insert(url)
        }
        return url
    }

    /// Stops tracking `url` (it was moved elsewhere or removed by its user).
    func forget(_ url: URL) {
        state.withLock { _ = $0.files.remove(url) }
    }

    func remove(_ url: URL) {
        forget(url)
        try? FileManager.default.removeItem(at: url)
    }

    /// Removes every tracked file; later ones can still be created.
    func removeAll() {
        let files = state.withLock { state in
            defer { state.files = [] }
            return state.files
        }
        for file in files { try? FileManager.default.removeItem(at: file) }
    }

    /// Removes every tracked file and refuses new ones.
    func close() {
        state.withLock { $0.closed = true }
        removeAll()
    }

    var isClosed: Bool { state.withLock { $0.closed } }
}
