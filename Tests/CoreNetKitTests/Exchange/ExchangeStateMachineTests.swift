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

/// The exchange's state machine as a table: from a state reached by a few events, one event
/// gives a phase and an output (what the reader is answered, what the transport is told, how
/// the timer is set). No I/O, no clock: times are plain durations.
@Suite struct ExchangeStateMachineTests {
    typealias Machine = ExchangeStateMachine

    /// An event, as the table names it.
    enum Event: CustomStringConvertible {
        case started(Int)
        case queued
        case sending(Int)
        case head
        case chunk(Int, at: Int)
        case end, fail, wantsHead
        case wantsChunk(Int)
        case takesHead
        case takesChunk
        case left
        case timer(Int)

        var description: String {
            switch self {
            case .started(let t): "started@\(t)"
            case .queued: "queued"
            case .sending(let t): "sending@\(t)"
            case .head: "head"
            case .chunk(let n, let t): "chunk(\(n))@\(t)"
            case .end: "end"
            case .fail: "fail"
            case .wantsHead: "wantsHead"
            case .wantsChunk(let t): "wantsChunk@\(t)"
            case .takesHead: "takesHead"
            case .takesChunk: "takesChunk"
            case .left: "left"
            case .timer(let t): "timer@\(t)"
            }
        }

        func apply(to machine: inout Machine) -> Machine.Output {
            switch self {
            case .started(let t): machine.transportStarted(now: .seconds(t))
            case .queued: machine.queued()
            case .sending(let t): machine.sending(now: .seconds(t))
            case .head:
                machine.receivedHead(ExchangeHead(statusCode: 200, headers: [:], url: nil), now: .zero)
            case .chunk(let n, let t): machine.receivedChunk(Data(count: n), now: .seconds(t))
            case .end: machine.ended(now: .zero)
            case .fail: machine.failed(URLError(.networkConnectionLost), now: .zero)
            case .wantsHead: machine.readerWantsHead()
            case .wantsChunk(let t): machine.readerWantsChunk(now: .seconds(t))
            case .takesHead: machine.readerTakesHeadIfReady() ?? Machine.Output()
            case .takesChunk: machine.readerTakesChunkIfReady() ?? Machine.Output()
            case .left: machine.readerLeft()
            case .timer(let t): machine.timerFired(now: .seconds(t))
            }
        }
    }

    /// One row: the events before, the event, and what it gives.
    struct Row: CustomStringConvertible, Sendable {
        let given: [Event]
        let event: Event
        let phase: Machine.Phase
        let answer: String?
        let command: Machine.Command?
        let wake: String?
        var limits = Machine.Limits(timeout: 3, idle: nil, bufferLimit: 100)

        var description: String { "\(given) + \(event)" }
    }

    static func describe(_ answer: Machine.Answer?) -> String? {
        switch answer {
        case nil: nil
        case .head(let head)?: "head \(head.statusCode)"
        case .chunk(let data)?: "chunk \(data.count)"
        case .end?: "end"
        case .failure(let error as BaseServerError)?: "failure \(error.code)"
        case .failure(let error as URLError)?: "failure URLError \(error.code.rawValue)"
        case .failure(is CancellationError)?: "failure cancelled"
        case .failure(let error)?: "failure \(error)"
        }
    }

    static func describe(_ wake: Machine.Wake?) -> String? {
        switch wake {
        case nil: nil
        case .cancel?: "cancel"
        case .at(let time)?: "at \(time.components.seconds)"
        }
    }

    static let idle5 = Machine.Limits(timeout: .infinity, idle: 5, bufferLimit: 100)
    static let noLimits = Machine.Limits(timeout: .infinity, idle: nil, bufferLimit: 100)
    static let holdsHead = Machine.Limits(timeout: 3, idle: nil, bufferLimit: 100, holdsHeadForBody: true)

    static let rows: [Row] = [
        // Starting: the deadline starts with the transport, unless it queues the request.
        Row(given: [], event: .started(0), phase: .waitingForHead, answer: nil, command: nil, wake: "at 3"),
        Row(given: [.queued], event: .started(0), phase: .queued, answer: nil, command: nil, wake: nil),
        Row(
            given: [.queued, .started(0)], event: .sending(4), phase: .waitingForHead, answer: nil, command: nil,
            wake: "at 7"),
        Row(
            given: [], event: .started(0), phase: .waitingForHead, answer: nil, command: nil, wake: nil,
            limits: noLimits),
        // The head: to a waiting reader at once, or held for the body's first bytes.
        Row(
            given: [.started(0), .wantsHead], event: .head, phase: .receiving, answer: "head 200", command: nil,
            wake: nil),
        Row(given: [.started(0)], event: .head, phase: .receiving, answer: nil, command: nil, wake: nil),
        Row(
            given: [.started(0), .head], event: .wantsHead, phase: .receiving, answer: "head 200", command: nil,
            wake: nil),
        Row(
            given: [.started(0), .wantsHead], event: .head, phase: .receiving, answer: nil, command: .resume, wake: nil,
            limits: holdsHead),
        Row(
            given: [.started(0), .wantsHead, .head], event: .chunk(10, at: 0), phase: .receiving, answer: "head 200",
            command: nil, wake: nil, limits: holdsHead),
        Row(
            given: [.started(0), .wantsHead, .head], event: .end, phase: .receiving, answer: "head 200", command: nil,
            wake: nil, limits: holdsHead),
        // A transport that fails or ends before the head.
        Row(
            given: [.started(0), .wantsHead], event: .fail, phase: .closed, answer: "failure URLError -1005",
            command: nil, wake: "cancel"),
        Row(
            given: [.started(0), .wantsHead], event: .end, phase: .closed, answer: "failure URLError -1005",
            command: nil, wake: "cancel"),
        Row(given: [.started(0)], event: .chunk(1, at: 0), phase: .receiving, answer: nil, command: nil, wake: nil),
        // The body: chunks to a waiting reader, buffered otherwise, paused past the limit; a
        // reader that finds nothing asks the transport for more.
        Row(
            given: [.started(0), .head, .wantsHead], event: .wantsChunk(0), phase: .receiving, answer: nil,
            command: .resume, wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead, .wantsChunk(0)], event: .chunk(10, at: 1), phase: .receiving,
            answer: "chunk 10", command: nil, wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead], event: .chunk(60, at: 1), phase: .receiving, answer: nil,
            command: nil, wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(60, at: 1)], event: .chunk(60, at: 1), phase: .receiving,
            answer: nil, command: .pause, wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(60, at: 1), .chunk(45, at: 1)], event: .wantsChunk(1),
            phase: .receiving, answer: "chunk 60", command: .resume, wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(60, at: 1), .chunk(45, at: 1), .chunk(6_200, at: 1)],
            event: .chunk(100, at: 1), phase: .receiving, answer: nil, command: .cancel, wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(6_500, at: 1)], event: .wantsChunk(1), phase: .closed,
            answer: "failure responseTooLarge", command: nil, wake: "cancel"),
        // The end: after the buffered chunks, to the reader; a failure likewise.
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(10, at: 1), .end], event: .wantsChunk(1), phase: .receiving,
            answer: "chunk 10", command: nil, wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(10, at: 1), .end, .wantsChunk(1)], event: .wantsChunk(1),
            phase: .closed, answer: "end", command: nil, wake: "cancel"),
        Row(
            given: [.started(0), .head, .wantsHead, .wantsChunk(1)], event: .end, phase: .closed, answer: "end",
            command: nil, wake: "cancel"),
        Row(
            given: [.started(0), .head, .wantsHead, .wantsChunk(1)], event: .fail, phase: .closed,
            answer: "failure URLError -1005", command: nil, wake: "cancel"),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(10, at: 1), .fail], event: .wantsChunk(1), phase: .receiving,
            answer: "chunk 10", command: nil, wake: nil),
        // The deadline: the transport is cancelled, the reader answered once it wound down.
        Row(
            given: [.started(0), .wantsHead], event: .timer(2), phase: .waitingForHead, answer: nil, command: nil,
            wake: "at 3"),
        Row(
            given: [.started(0), .wantsHead], event: .timer(3), phase: .expired, answer: nil, command: .cancel,
            wake: "at 5"),
        Row(
            given: [.started(0), .wantsHead, .timer(3)], event: .fail, phase: .closed, answer: "failure timeout",
            command: nil, wake: "cancel"),
        Row(
            given: [.started(0), .wantsHead, .timer(3)], event: .timer(5), phase: .closed, answer: "failure timeout",
            command: nil, wake: nil),
        Row(
            given: [.started(0), .wantsHead, .timer(3), .fail], event: .head, phase: .closed, answer: nil, command: nil,
            wake: nil),
        Row(
            given: [.queued, .started(0), .wantsHead], event: .timer(100), phase: .queued, answer: nil, command: nil,
            wake: nil),
        // The idle timeout counts the server's silence while the reader waits, not while it works.
        Row(
            given: [.started(0), .head, .wantsHead, .wantsChunk(0)], event: .timer(5), phase: .expired, answer: nil,
            command: .cancel, wake: "at 7", limits: idle5),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(1, at: 4)], event: .timer(9), phase: .receiving, answer: nil,
            command: nil, wake: nil, limits: idle5),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(1, at: 4), .timer(9)], event: .wantsChunk(9),
            phase: .receiving, answer: "chunk 1", command: nil, wake: nil, limits: idle5),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(1, at: 4), .timer(9), .wantsChunk(9)], event: .wantsChunk(9),
            phase: .receiving, answer: nil, command: .resume, wake: "at 14", limits: idle5),
        // Taking what is there without waiting: nothing is left behind when nothing is there.
        Row(given: [.started(0)], event: .takesHead, phase: .waitingForHead, answer: nil, command: nil, wake: nil),
        Row(given: [.started(0), .takesHead], event: .head, phase: .receiving, answer: nil, command: nil, wake: nil),
        Row(
            given: [.started(0), .head], event: .takesHead, phase: .receiving, answer: "head 200", command: nil,
            wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead, .chunk(10, at: 1)], event: .takesChunk, phase: .receiving,
            answer: "chunk 10", command: nil, wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead], event: .takesChunk, phase: .receiving, answer: nil, command: nil,
            wake: nil),
        // The reader leaves: the transport is cancelled, once, and nothing happens after.
        Row(
            given: [.started(0), .wantsHead], event: .left, phase: .closed, answer: "failure cancelled",
            command: .cancel, wake: "cancel"),
        Row(given: [], event: .left, phase: .closed, answer: nil, command: nil, wake: nil),
        Row(given: [.left], event: .started(0), phase: .closed, answer: nil, command: .cancel, wake: nil),
        Row(
            given: [.started(0), .head, .wantsHead, .wantsChunk(0), .end], event: .left, phase: .closed, answer: nil,
            command: nil, wake: nil),
        Row(
            given: [.started(0), .left], event: .wantsHead, phase: .closed, answer: "failure cancelled", command: nil,
            wake: nil),
        Row(
            given: [.started(0), .left], event: .chunk(5, at: 0), phase: .closed, answer: nil, command: nil, wake: nil),
    ]

    @Test(arguments: rows) func eventGivesPhaseAndOutput(_ row: Row) {
        var machine = Machine(limits: row.limits)
        for event in row.given { _ = event.apply(to: &machine) }

        let output = row.event.apply(to: &machine)

        #expect(machine.phase == row.phase)
        #expect(Self.describe(output.answer) == row.answer)
        #expect(output.command == row.command)
        #expect(Self.describe(output.wake) == row.wake)
    }

    @Test func aBodyArrivingInOneGoIsReadToItsEndWithoutATimer() {
        var machine = Machine(limits: Self.holdsHead)
        _ = machine.receivedHead(ExchangeHead(statusCode: 200, headers: [:], url: nil), now: .zero)
        _ = machine.receivedChunk(Data(count: 3), now: .zero)
        _ = machine.ended(now: .zero)

        let started = machine.transportStarted(now: .zero)
        let head = machine.readerWantsHead()
        let chunk = machine.readerWantsChunk(now: .zero)
        let end = machine.readerWantsChunk(now: .zero)

        #expect(started.wake == nil)
        #expect(Self.describe(head.answer) == "head 200")
        #expect(Self.describe(chunk.answer) == "chunk 3")
        #expect(Self.describe(end.answer) == "end")
        #expect(machine.phase == .closed)
    }
}
