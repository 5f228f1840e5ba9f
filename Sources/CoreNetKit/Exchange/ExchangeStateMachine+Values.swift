//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The head of a response as a transport reports it.
struct ExchangeHead: Sendable {
    var statusCode: Int
    var headers: HTTPHeaders
    var url: URL?
    var httpVersion: String?
}

extension ExchangeStateMachine {
    struct Limits: Sendable {
        /// The total deadline from the request being sent to the last byte read; `nil` for none.
        var total: Duration?
        /// The longest silence of the server while the reader waits; `nil` for none.
        var idle: Duration?
        /// Past this many unread bytes the transport is told to pause; at half, to go on.
        var bufferLimit: Int
        /// Past this many unread bytes (a transport that cannot pause) the body fails with `responseTooLarge`.
        var hardBufferLimit: Int
        /// Whether the head is handed over with the body's first bytes (or its end): one wake-up instead of two.
        var holdsHeadForBody: Bool
        /// How long an expired transport may take to wind down before the reader is answered without it.
        var grace: Duration = .seconds(2)

        init(timeout: TimeInterval, idle: TimeInterval?, bufferLimit: Int, holdsHeadForBody: Bool = false) {
            total = Self.duration(timeout)
            self.idle = idle.flatMap(Self.duration)
            self.bufferLimit = max(bufferLimit, 1)
            hardBufferLimit = max(bufferLimit, 1) * 64
            self.holdsHeadForBody = holdsHeadForBody
        }

        /// `seconds` as a duration, `nil` unless finite and positive.
        static func duration(_ seconds: TimeInterval) -> Duration? {
            guard seconds.isFinite, seconds > 0 else { return nil }
            return .nanoseconds(Int64(min(seconds * 1e9, 9.2e18).rounded()))
        }
    }

    enum Phase: Equatable {
        /// The transport holds the request in a queue of its own; the deadline does not run.
        case queued
        case waitingForHead
        /// The head arrived; the body flows until the transport ends it and the reader reads it.
        case receiving
        /// The transport was told to cancel; the reader gets the timeout once it wound down or the grace passed.
        case expired
        /// The reader has had its last answer, or left.
        case closed
    }

    enum Answer {
        case head(ExchangeHead)
        case chunk(Data)
        case end
        case failure(any Error)
    }

    /// What the transport is told.
    enum Command: Equatable {
        case pause
        /// Go on, or pull the next chunk.
        case resume
        case cancel
    }

    /// Wake at a time (replacing the wake set before), or never.
    enum Wake: Equatable {
        case at(Duration)
        case cancel
    }

    /// What to do after an event.
    struct Output {
        var answer: Answer?
        var command: Command?
        var wake: Wake?
    }

    static func timedOut(_ message: String) -> BaseServerError {
        BaseServerError(code: .timeout, message: message, underlyingError: URLError(.timedOut))
    }

    static func seconds(_ value: Duration?) -> String {
        guard let value else { return "?" }
        let seconds = Double(value.components.seconds) + Double(value.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
