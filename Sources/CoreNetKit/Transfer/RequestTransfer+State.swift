//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension RequestTransfer {
    /// The transfer's state and decisions, without I/O: each event is a `mutating` method called under the lock that
    /// returns what the transfer does after unlocking.
    struct StateMachine {
        enum Phase: Equatable {
            /// Progress flows; `placed` is the downloaded file once it was moved into place.
            case open(placed: URL?)
            /// A file is being renamed; `interrupted` says whether the request was cancelled or ended meanwhile.
            case placing(source: URL, destination: URL, interrupted: Interruption?)
            /// Cancelled with a partial download kept: files stay until the transport stopped writing and the
            /// transfer ends (`placed` is then removed).
            case cancelledKeepingPartial(placed: URL?)
            /// No files left but a success's download and the partial one of ``resumeData``.
            case ended(resumeData: DownloadResumeData?)
        }

        enum Interruption: Equatable { case cancelledKeepingPartial, ended }

        enum ProgressAction {
            case none
            case deliver(TransferProgress, to: Sink)
        }

        enum PlaceAction: Equatable {
            /// Rename it, then report with ``placed(renamed:)``.
            case rename
            case refuse
        }

        enum PlacedAction: Equatable {
            /// It is in place (or the rename failed and nothing moved): go on.
            case done
            /// Cancelled or ended meanwhile: undo the rename, remove unresumable kept bytes, end in cancellation.
            case interrupted(undo: Undo?, removePartial: DownloadResumeData?)
        }

        struct Undo: Equatable {
            var destination: URL
            /// Where to move it back (it is the kept partial file); `nil` removes it.
            var moveBackTo: URL?
        }

        enum CancelAction: Equatable {
            /// Nothing is kept: end the transfer at once, as a failure.
            case finish
            /// A partial download is kept: close the scratch files' tracking and wait for the end.
            case keepFiles
            case none
        }

        struct FinishAction {
            /// Each direction's closing `1.0`, for `sink`, on success.
            var finals: [(TransferProgress, TransferDirection)] = []
            var sink: Sink?
            var removePlaced: URL?
            var removePartial: DownloadResumeData?
            var closeFiles = false
        }

        private(set) var phase = Phase.open(placed: nil)
        private(set) var sink: Sink?
        private var upload = ProgressThrottle<WallInstant>()
        private var download = ProgressThrottle<WallInstant>()
        var resume = ResumeState()

        var reportsProgress: Bool { sink != nil }

        var resumeData: DownloadResumeData? { if case .ended(let data) = phase { data } else { nil } }

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

        /// Kept bytes that can be resumed become the ``resumeData`` of a failure; others are removed.
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

        private var isEnded: Bool { if case .ended = phase { true } else { false } }

        private var resumable: DownloadResumeData? {
            resume.partial.flatMap { $0.bytesReceived > 0 && $0.ifRangeValidator != nil ? $0 : nil }
        }
    }

    struct ResumeState {
        var keepsPartial = false
        /// The request's resume data is looked at once, at the first attempt.
        var adoptedResumeData = false
        /// The bytes kept from earlier attempts (or the resume data), if any.
        var partial: DownloadResumeData?
        /// The current attempt's `Range` start; 0 for the whole.
        var requestedOffset: Int64 = 0
        var head: ResponseHead?
        /// Added to the transport's download progress: the bytes a resumed attempt skipped.
        var downloadOffset: Int64 = 0
    }
}

extension RequestTransfer.ResumeState {
    /// Returns the request's resume data to adopt, at the first attempt only.
    mutating func startAttempt(keeping keeps: Bool, resumeData: DownloadResumeData?) -> DownloadResumeData? {
        keepsPartial = keeps
        guard !adoptedResumeData else { return nil }
        adoptedResumeData = true
        return resumeData
    }

    /// The `Range` offset and `If-Range` validator to ask for, if kept bytes can be resumed; remembered for
    /// ``received(_:)`` and ``outcome(of:)``.
    mutating func rangeToAsk() -> (offset: Int64, validator: String)? {
        guard let partial, partial.bytesReceived > 0, let validator = partial.ifRangeValidator else {
            requestedOffset = 0
            return nil
        }
        requestedOffset = partial.bytesReceived
        return (partial.bytesReceived, validator)
    }

    /// For a `206` that continues the kept bytes, returns how many bytes remain (-1 unknown); progress then counts
    /// from where the kept bytes end.
    mutating func received(_ head: ResponseHead) -> Int64? {
        self.head = head
        guard head.status == 206, requestedOffset > 0, let range = head.contentRange, range.first == requestedOffset
        else { return nil }
        downloadOffset = range.first
        return range.total.map { $0 - range.first } ?? -1
    }

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
