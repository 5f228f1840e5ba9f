//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension RequestTransfer {
    /// The transfer's state and every decision about it, without I/O: each event is a `mutating`
    /// method, called under the transfer's lock, that returns what to do; the transfer does it
    /// after unlocking (files, the progress sink).
    struct StateMachine {
        /// Where the transfer is in its life.
        enum Phase: Equatable {
            /// Progress flows; `placed` is the downloaded file once it was moved into place.
            case open(placed: URL?)
            /// A file is being renamed from `source` to `destination`; `interrupted` says whether
            /// the request was cancelled or ended meanwhile.
            case placing(source: URL, destination: URL, interrupted: Interruption?)
            /// Cancelled with a partial download kept: no progress; the files stay until the
            /// transport has stopped writing and the transfer ends (`placed`, a file already in
            /// place, is then removed).
            case cancelledKeepingPartial(placed: URL?)
            /// Ended: no progress, no files but the downloaded one of a success and the partial
            /// one of ``resumeData``.
            case ended(resumeData: DownloadResumeData?)
        }

        /// What happened while a file was being placed.
        enum Interruption: Equatable {
            case cancelledKeepingPartial
            case ended
        }

        /// What to do with a progress value.
        enum ProgressAction {
            case none
            case deliver(TransferProgress, to: Sink)
        }

        /// What to do about a file to move into place.
        enum PlaceAction: Equatable {
            /// Rename it, then report with ``placed(renamed:)``.
            case rename
            /// Do not: the transfer was cancelled or ended.
            case refuse
        }

        /// What to do once a rename was tried.
        enum PlacedAction: Equatable {
            /// It is in place (or the rename failed and nothing moved): go on.
            case done
            /// The request was cancelled or ended meanwhile: take back what the rename did
            /// (`undo`), remove the kept bytes nobody can resume (`removePartial`), and end in
            /// cancellation.
            case interrupted(undo: Undo?, removePartial: DownloadResumeData?)
        }

        /// Taking a placed file back out of its destination.
        struct Undo: Equatable {
            var destination: URL
            /// Where to move it back (it is the kept partial file); `nil` removes it.
            var moveBackTo: URL?
        }

        /// What to do when the request is cancelled.
        enum CancelAction: Equatable {
            /// Nothing is kept: end the transfer at once, as a failure.
            case finish
            /// A partial download is kept: close the scratch files' tracking and wait for the end.
            case keepFiles
            case none
        }

        /// What ending the transfer takes.
        struct FinishAction {
            /// Each direction's closing `1.0`, for `sink`, on success.
            var finals: [(TransferProgress, TransferDirection)] = []
            var sink: Sink?
            /// The downloaded file of a failed request, to remove.
            var removePlaced: URL?
            /// Kept bytes nobody can resume, to remove.
            var removePartial: DownloadResumeData?
            /// Whether the scratch files are still to be closed.
            var closeFiles = false
        }

        private(set) var phase = Phase.open(placed: nil)
        private(set) var sink: Sink?
        private var upload = ProgressThrottle<WallInstant>()
        private var download = ProgressThrottle<WallInstant>()
        /// The download's resume bookkeeping across attempts.
        var resume = ResumeState()

        /// Whether progress has anyone to go to.
        var reportsProgress: Bool { sink != nil }

        /// The resume data the ended transfer left, if any.
        var resumeData: DownloadResumeData? {
            if case .ended(let data) = phase { return data }
            return nil
        }

        mutating func connect(_ sink: @escaping Sink) {
            self.sink = sink
        }

        /// A raw progress callback: `completed` of `expected` bytes (< 0 unknown) at `now`.
        mutating func progress(
            _ direction: TransferDirection, completed: Int64, expected: Int64, now: WallInstant
        ) -> ProgressAction {
            guard let sink, case .open = phase else { return .none }
            let offered: TransferProgress?
            switch direction {
            case .upload: offered = upload.offer(completed: completed, expected: expected, now: now)
            case .download:
                // A resumed attempt counts from the bytes it skipped.
                let offset = resume.downloadOffset
                let total = expected >= 0 ? expected + offset : expected
                offered = download.offer(completed: completed + offset, expected: total, now: now)
            }
            return offered.map { .deliver($0, to: sink) } ?? .none
        }

        /// The file at `source` is about to be renamed to `destination`.
        mutating func place(_ source: URL, at destination: URL) -> PlaceAction {
            guard case .open = phase else { return .refuse }
            phase = .placing(source: source, destination: destination, interrupted: nil)
            return .rename
        }

        /// The rename ``place(_:at:)`` allowed was tried; `renamed` says whether it worked.
        mutating func placed(renamed: Bool) -> PlacedAction {
            guard case .placing(let source, let destination, let interrupted) = phase else { return .done }
            let isPartial = resume.partial?.partialFileURL == source
            switch interrupted {
            case nil:
                phase = .open(placed: renamed ? destination : nil)
                if renamed, isPartial { resume.partial = nil }
                return .done
            case .cancelledKeepingPartial?:
                phase = .cancelledKeepingPartial(placed: nil)
                let undo = renamed ? Undo(destination: destination, moveBackTo: isPartial ? source : nil) : nil
                return .interrupted(undo: undo, removePartial: nil)
            case .ended?:
                let stays = resumable
                let removePartial = stays == nil ? resume.partial : nil
                resume.partial = nil
                phase = .ended(resumeData: stays)
                let undo =
                    renamed ? Undo(destination: destination, moveBackTo: isPartial && stays != nil ? source : nil) : nil
                return .interrupted(undo: undo, removePartial: removePartial)
            }
        }

        /// The request was cancelled (from the cancelling thread).
        mutating func cancel() -> CancelAction {
            guard resume.keepsPartial else { return isEnded ? .none : .finish }
            switch phase {
            case .open(let placed):
                phase = .cancelledKeepingPartial(placed: placed)
                return .keepFiles
            case .placing(let source, let destination, nil):
                phase = .placing(source: source, destination: destination, interrupted: .cancelledKeepingPartial)
                return .keepFiles
            case .placing, .cancelledKeepingPartial, .ended:
                return .none
            }
        }

        /// The request ended, `succeeded` or not. Kept bytes that can be resumed become the
        /// ``resumeData`` of a failure; others are removed.
        mutating func finish(succeeded: Bool) -> FinishAction {
            var action = FinishAction()
            switch phase {
            case .ended:
                return action
            case .placing(let source, let destination, _):
                // The placer ends the transfer when its rename returns (``placed(renamed:)``).
                phase = .placing(source: source, destination: destination, interrupted: .ended)
                action.closeFiles = true
                return action
            case .open(let placed):
                if succeeded {
                    if let closing = upload.finish() { action.finals.append((closing, .upload)) }
                    if let closing = download.finish() { action.finals.append((closing, .download)) }
                    action.sink = sink
                } else {
                    action.removePlaced = placed
                }
            case .cancelledKeepingPartial(let placed):
                action.removePlaced = placed
            }
            let stays = succeeded ? nil : resumable
            if stays == nil { action.removePartial = resume.partial }
            resume.partial = nil
            phase = .ended(resumeData: stays)
            action.closeFiles = true
            return action
        }

        private var isEnded: Bool {
            if case .ended = phase { return true }
            return false
        }

        /// The kept bytes as resume data, if they can be resumed.
        private var resumable: DownloadResumeData? {
            guard let partial = resume.partial, partial.bytesReceived > 0, partial.ifRangeValidator != nil else {
                return nil
            }
            return partial
        }
    }

    /// A download's bookkeeping across its attempts, for a resume.
    struct ResumeState {
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
    }
}

extension RequestTransfer.ResumeState {
    /// An attempt of the download starts: returns the request's resume data to adopt, the first
    /// time only.
    mutating func startAttempt(keeping keeps: Bool, resumeData: DownloadResumeData?) -> DownloadResumeData? {
        keepsPartial = keeps
        guard !adoptedResumeData else { return nil }
        adoptedResumeData = true
        return resumeData
    }

    /// The range the attempt asks for (`Range` from `offset`, `If-Range: validator`), if kept
    /// bytes can be resumed; it is remembered for ``received(_:)`` and ``outcome(of:)``.
    mutating func rangeToAsk() -> (offset: Int64, validator: String)? {
        guard let partial, partial.bytesReceived > 0, let validator = partial.ifRangeValidator else {
            requestedOffset = 0
            return nil
        }
        requestedOffset = partial.bytesReceived
        return (partial.bytesReceived, validator)
    }

    /// The attempt's head arrived; for a `206` that continues the kept bytes, returns how many
    /// bytes remain (-1 unknown), and the progress counts from where the kept bytes end.
    mutating func received(_ head: ResponseHead) -> Int64? {
        self.head = head
        guard head.status == 206, requestedOffset > 0, let range = head.contentRange, range.first == requestedOffset
        else { return nil }
        downloadOffset = range.first
        return range.total.map { $0 - range.first } ?? -1
    }

    /// What the attempt's response means for the file.
    func outcome(of statusCode: Int) -> ResumeOutcome {
        guard requestedOffset > 0 else {
            return (200..<300).contains(statusCode) ? .whole : .notADownload
        }
        switch statusCode {
        case 416: return .startOver
        case 206: return head?.contentRange?.first == requestedOffset ? .appended : .startOver
        case 200..<300: return .whole
        default: return .notADownload
        }
    }
}
