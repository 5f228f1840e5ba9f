//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import CoreNetKit

/// The transfer's state machine on its own: events in, actions out, no files and no server.
@Suite(.timeLimit(.minutes(3))) struct RequestTransferStateTests {
    private let scratch = URL(fileURLWithPath: "/tmp/.file.part")
    private let destination = URL(fileURLWithPath: "/tmp/file")
    private let later = WallInstant(Date(timeIntervalSinceReferenceDate: 10))

    private func partial(at file: URL) -> DownloadResumeData {
        DownloadResumeData(
            url: URL(string: "http://api.invalid/file")!, destination: destination, partialFileURL: file,
            bytesReceived: 10, expectedLength: 100, entityTag: "\"v1\"", lastModified: nil)
    }

    @Test func successDeliversEachDirectionsClosingValueAndNothingPassesAfterTheEnd() {
        var machine = RequestTransfer.StateMachine()
        machine.connect { _, _ in }
        _ = machine.progress(.download, completed: 10, expected: 100, now: later)

        let finish = machine.finish(succeeded: true)
        let after = machine.progress(.download, completed: 50, expected: 100, now: later)

        // Each direction closes at 1.0: the upload (nothing sent) at 0 of 0, the download at its total.
        #expect(
            finish.finals.map { $0.0 } == [
                TransferProgress(completedBytes: 0, totalBytes: 0),
                TransferProgress(completedBytes: 100, totalBytes: 100),
            ])
        #expect(finish.sink != nil && finish.closeFiles)
        guard case .none = after else {
            Issue.record("progress passed after the end")
            return
        }
        #expect(machine.finish(succeeded: true).closeFiles == false)
    }

    @Test func cancelWithoutAKeptDownloadFinishesAtOnceAndOnlyOnce() {
        var machine = RequestTransfer.StateMachine()

        let first = machine.cancel()
        _ = machine.finish(succeeded: false)
        let second = machine.cancel()

        #expect(first == .finish)
        #expect(second == .none)
    }

    @Test func cancelKeepingAPartialDownloadStopsProgressAndItsBytesBecomeResumeDataAtTheEnd() {
        var machine = RequestTransfer.StateMachine()
        machine.connect { _, _ in }
        machine.resume.keepsPartial = true
        machine.resume.partial = partial(at: scratch)

        let cancel = machine.cancel()
        let progress = machine.progress(.download, completed: 20, expected: 100, now: later)
        let finish = machine.finish(succeeded: false)

        #expect(cancel == .keepFiles)
        if case .deliver = progress { Issue.record("progress passed after the cancellation") }
        #expect(finish.removePartial == nil)
        #expect(machine.resumeData == partial(at: scratch))
    }

    @Test func fileBeingPlacedWhenTheRequestEndsIsTakenBackOutOfItsDestination() {
        var machine = RequestTransfer.StateMachine()

        #expect(machine.place(scratch, at: destination) == .rename)
        let finish = machine.finish(succeeded: false)
        let placed = machine.placed(renamed: true)

        #expect(finish.removePlaced == nil)
        #expect(placed == .interrupted(undo: .init(destination: destination, moveBackTo: nil), removePartial: nil))
        #expect(machine.phase == .ended(resumeData: nil))
    }

    @Test func keptPartialBeingPlacedWhenTheRequestIsCancelledMovesBackAndStaysResumable() {
        var machine = RequestTransfer.StateMachine()
        machine.resume.keepsPartial = true
        machine.resume.partial = partial(at: scratch)

        _ = machine.place(scratch, at: destination)
        let cancel = machine.cancel()
        let placed = machine.placed(renamed: true)
        _ = machine.finish(succeeded: false)

        #expect(cancel == .keepFiles)
        #expect(placed == .interrupted(undo: .init(destination: destination, moveBackTo: scratch), removePartial: nil))
        #expect(machine.resumeData == partial(at: scratch))
    }

    @Test func placedDownloadOfAFailedRequestIsRemovedAndAPlaceAfterTheEndIsRefused() {
        var machine = RequestTransfer.StateMachine()
        _ = machine.place(scratch, at: destination)
        #expect(machine.placed(renamed: true) == .done)

        let finish = machine.finish(succeeded: false)

        #expect(finish.removePlaced == destination)
        #expect(machine.place(scratch, at: destination) == .refuse)
    }

    @Test func resumedRangeMovesTheProgressToWhereTheKeptBytesEnd() {
        var state = RequestTransfer.ResumeState()
        state.partial = partial(at: scratch)

        let range = state.rangeToAsk()
        let remaining = state.received(
            ResponseHead(status: 206, headers: ["Content-Range": "bytes 10-99/100"]))

        #expect(range?.offset == 10 && range?.validator == "\"v1\"")
        #expect(remaining == 90)
        #expect(state.downloadOffset == 10)
        #expect(state.outcome(of: 206) == .appended)
        #expect(state.outcome(of: 416) == .startOver)
    }
}
