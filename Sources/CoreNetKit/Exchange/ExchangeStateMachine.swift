//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One request's exchange with its transport, as a value: events in (from ``TransportEvents``, the body's reader and
/// the timer), an ``Output`` for ``ExchangeDriver`` to carry out. Times are durations since the exchange began.
///
/// ```
/// queued ──sending──▶ waitingForHead ──head──▶ receiving ──end/fail, read to the end──▶ closed
///                            │                     │
///                            └──────deadline──▶ expired ──transport wound down / grace──▶ closed
/// ```
/// A reader that leaves closes the exchange from any phase; events after `closed` change nothing.
struct ExchangeStateMachine {
    private(set) var phase: Phase = .waitingForHead
    let limits: Limits
    /// Whether the transport's `start` has returned (its exchange can be told what to do).
    private var transportKnown = false
    private var cancelWhenKnown = false
    /// Whether the timer runs (from `sending`, or from the start when nothing is queued).
    private var timing = false
    private var deadline: Duration?
    /// Since when the silence counts for the idle timeout.
    private var silenceSince: Duration = .zero
    private var wakeAt: Duration?
    private var head: ExchangeHead?
    private var chunks: [Data] = []
    private var readIndex = 0
    private(set) var bufferedBytes = 0
    private var paused = false
    /// How the transport ended; `nil` while it still sends.
    private(set) var transportEnd: Result<Void, any Error>?
    private enum Waiting { case head, chunk }
    private var waiting: Waiting?
    /// The timeout once the deadline passed; why the exchange closed, for a late reader.
    private var expiry: (any Error)?
    private var gracePassed = false
    private var closedBy: (any Error)?

    init(limits: Limits) {
        self.limits = limits
    }

    // MARK: The transport's events

    /// The timer starts unless the request waits in the transport's queue or everything has already arrived.
    mutating func transportStarted(now: Duration) -> Output {
        transportKnown = true
        var output = Output()
        if cancelWhenKnown { output.command = .cancel }
        if phase == .waitingForHead || phase == .receiving && transportEnd == nil {
            startTiming(now: now, into: &output)
        }
        return output
    }

    mutating func queued() -> Output {
        if phase == .waitingForHead && !timing { phase = .queued }
        return Output()
    }

    mutating func sending(now: Duration) -> Output {
        guard phase == .queued else { return Output() }
        phase = .waitingForHead
        var output = Output()
        if transportKnown { startTiming(now: now, into: &output) }
        return output
    }

    mutating func receivedHead(_ head: ExchangeHead, now: Duration) -> Output {
        guard phase == .waitingForHead || phase == .queued else { return Output() }
        phase = .receiving
        silenceSince = now
        self.head = head
        var output = answerWaitingReader()
        if transportKnown && !timing { startTiming(now: now, into: &output) }
        return output
    }

    mutating func receivedChunk(_ chunk: Data, now: Duration) -> Output {
        switch phase {
        case .queued, .waitingForHead:
            return failed(
                BaseServerError(
                    code: .transport, message: "the transport reported body bytes before the response head"),
                now: now)
        case .expired, .closed:
            return Output()
        case .receiving:
            break
        }
        guard transportEnd == nil, !chunk.isEmpty else { return Output() }
        silenceSince = now
        chunks.append(chunk)
        bufferedBytes += chunk.count
        if bufferedBytes > limits.hardBufferLimit {
            // A transport that does not pause: drop the buffer, fail the body and stop it, so memory stays bounded.
            dropBuffer()
            transportEnd = .failure(
                BaseServerError(
                    code: .responseTooLarge,
                    message:
                        "the reader fell more than \(limits.hardBufferLimit) bytes behind a transport that cannot pause"
                ))
            var output = answerWaitingReader()
            output.command = cancelCommand()
            return output
        }
        var output = answerWaitingReader()
        if bufferedBytes >= limits.bufferLimit && !paused {
            paused = true
            output.command = .pause
        }
        return output
    }

    mutating func ended(now: Duration) -> Output {
        let headless = phase == .queued || phase == .waitingForHead
        return transportEnded(headless ? .failure(URLError(.networkConnectionLost)) : .success(()))
    }

    mutating func failed(_ error: any Error, now: Duration) -> Output { transportEnded(.failure(error)) }

    /// Only the first end counts: the reader reads up to it, or an expired exchange has wound down.
    private mutating func transportEnded(_ end: Result<Void, any Error>) -> Output {
        switch phase {
        case .queued, .waitingForHead, .receiving:
            guard transportEnd == nil else { return Output() }
            transportEnd = end
            phase = .receiving
            return answerWaitingReader()
        case .expired: return woundDown()
        case .closed: return Output()
        }
    }

    // MARK: The reader's events

    mutating func readerWantsHead() -> Output {
        waiting = .head
        return answerWaitingReader()
    }

    mutating func readerWantsChunk(now: Duration) -> Output {
        waiting = .chunk
        var output = answerWaitingReader()
        if output.answer == nil, phase == .receiving, transportEnd == nil {
            // Silence counts from now, not while the reader was busy; the transport is asked for more.
            silenceSince = now
            if let idle = limits.idle, timing { output.wake = earlier(now + idle) }
            paused = false
            output.command = .resume
        }
        return output
    }

    /// The head (or the failure that replaced it) if it is there now; `nil`, changing nothing, if not.
    mutating func readerTakesHeadIfReady() -> Output? {
        takeIfReady(.head)
    }

    /// As ``readerTakesHeadIfReady()``, for the next chunk, the end or a failure.
    mutating func readerTakesChunkIfReady() -> Output? {
        takeIfReady(.chunk)
    }

    private mutating func takeIfReady(_ what: Waiting) -> Output? {
        guard waiting == nil else { return nil }
        waiting = what
        let output = answerWaitingReader()
        guard output.answer != nil else {
            waiting = nil
            return nil
        }
        return output
    }

    mutating func readerLeft() -> Output {
        guard phase != .closed else { return Output() }
        var output = Output()
        if waiting != nil { output.answer = .failure(CancellationError()) }
        waiting = nil
        if transportEnd == nil && phase != .expired { output.command = cancelCommand() }
        close(CancellationError(), into: &output)
        return output
    }

    // MARK: The timer's event

    /// The timer woke at `now`, perhaps a little early.
    mutating func timerFired(now: Duration) -> Output {
        wakeAt = nil
        switch phase {
        case .closed, .queued:
            return Output()
        case .expired:
            gracePassed = true
            return answerWaitingReader()
        case .waitingForHead, .receiving:
            break
        }
        var timeout: BaseServerError?
        if let deadline, now >= deadline {
            timeout = Self.timedOut(
                "no complete response within the request's timeout of \(Self.seconds(limits.total)) s")
        } else if let idle = limits.idle, silenceCounts, now >= silenceSince + idle {
            timeout = Self.timedOut("nothing arrived for the idle timeout of \(Self.seconds(limits.idle)) s")
        }
        guard let timeout else { return Output(wake: nextWake()) }
        expiry = timeout
        phase = .expired
        dropBuffer()
        var output = Output()
        if transportEnd == nil {
            output.command = cancelCommand()
            wakeAt = now + limits.grace
            output.wake = .at(now + limits.grace)
        } else {
            gracePassed = true
        }
        answerWaitingReader(into: &output)
        return output
    }

    // MARK: Deciding

    private mutating func answerWaitingReader() -> Output {
        var output = Output()
        answerWaitingReader(into: &output)
        return output
    }

    /// Answers the reader if what it waits for is there, closing the exchange with its last answer. Writes into
    /// `output` so no branch copies it (its payloads are resilient on Linux).
    private mutating func answerWaitingReader(into output: inout Output) {
        guard let waiting else { return }
        if phase == .closed {
            self.waiting = nil
            output.answer = .failure(closedBy ?? CancellationError())
            return
        }
        if phase == .expired {
            guard gracePassed || transportEnd != nil, let expiry else { return }
            self.waiting = nil
            output.answer = .failure(expiry)
            close(expiry, into: &output)
            return
        }
        switch waiting {
        case .head:
            if let head {
                if limits.holdsHeadForBody && readIndex == chunks.count && transportEnd == nil {
                    // Held for the body's first bytes: ask for them.
                    output.command = .resume
                    return
                }
                self.head = nil
                self.waiting = nil
                output.answer = .head(head)
            } else if let transportEnd {
                self.waiting = nil
                let error: any Error
                switch transportEnd {
                case .failure(let failure): error = failure
                case .success: error = URLError(.networkConnectionLost)
                }
                output.answer = .failure(error)
                close(error, into: &output)
            }
        case .chunk:
            if readIndex < chunks.count {
                self.waiting = nil
                output.answer = .chunk(takeChunk())
                if paused && bufferedBytes <= limits.bufferLimit / 2 && transportEnd == nil {
                    paused = false
                    output.command = .resume
                }
            } else if let transportEnd {
                self.waiting = nil
                switch transportEnd {
                case .success:
                    output.answer = .end
                    close(nil, into: &output)
                case .failure(let error):
                    output.answer = .failure(error)
                    close(error, into: &output)
                }
            }
        }
    }

    /// The transport reported its end after it was told to cancel on expiry.
    private mutating func woundDown() -> Output {
        if transportEnd == nil { transportEnd = .failure(expiry ?? CancellationError()) }
        var output = answerWaitingReader()
        if output.answer != nil || phase == .closed { return output }
        if wakeAt != nil { output.wake = .cancel }
        wakeAt = nil
        gracePassed = true
        return output
    }

    private mutating func startTiming(now: Duration, into output: inout Output) {
        guard !timing else { return }
        timing = true
        silenceSince = now
        deadline = limits.total.map { now + $0 }
        output.wake = nextWake()
    }

    /// Before the head, and while the reader waits for a body (or held head) the transport has not ended.
    private var silenceCounts: Bool {
        phase == .waitingForHead || phase == .receiving && transportEnd == nil && waiting != nil
    }

    /// The deadline, or the end of the idle time if sooner.
    private mutating func nextWake() -> Wake? {
        var next = deadline
        if let idle = limits.idle, silenceCounts {
            next = min(next ?? silenceSince + idle, silenceSince + idle)
        }
        guard let next else { return nil }
        wakeAt = next
        return .at(next)
    }

    /// A wake at `time` if the timer would otherwise wake later (or not at all).
    private mutating func earlier(_ time: Duration) -> Wake? {
        if let wakeAt, wakeAt <= time { return nil }
        wakeAt = time
        return .at(time)
    }

    private mutating func cancelCommand() -> Command? {
        guard transportKnown else {
            cancelWhenKnown = true
            return nil
        }
        return .cancel
    }

    private mutating func close(_ reason: (any Error)?, into output: inout Output) {
        phase = .closed
        closedBy = reason
        dropBuffer()
        if wakeAt != nil { output.wake = .cancel }
        wakeAt = nil
    }

    private mutating func takeChunk() -> Data {
        let chunk = chunks[readIndex]
        readIndex += 1
        bufferedBytes -= chunk.count
        if readIndex == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex > 64 && readIndex * 2 > chunks.count {
            chunks.removeFirst(readIndex)
            readIndex = 0
        }
        return chunk
    }

    private mutating func dropBuffer() {
        chunks = []
        readIndex = 0
        bufferedBytes = 0
    }
}
