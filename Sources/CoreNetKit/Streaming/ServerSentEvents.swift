//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension ResponseStream {
    /// The body as Server-Sent Events (`text/event-stream`, HTML Living Standard); a dropped connection throws.
    public var events: ServerSentEvents {
        ServerSentEvents(stream: self, reconnection: nil)
    }

    /// The body as Server-Sent Events that reconnect when the connection drops.
    ///
    /// When the stream fails with ``BaseServerError/Code-swift.struct/connectionLost``, an idle
    /// ``BaseServerError/Code-swift.struct/timeout``, or another error or status the configuration's ``RetryPolicy``
    /// retries, the sequence waits the server's `retry:` time (or `reconnection`'s default, capped by its maximum),
    /// resends the request with `Last-Event-ID` set to the last event ID read, and the loop goes on; delivered events
    /// are not delivered again (a server honouring `Last-Event-ID` resumes after them). Each reconnection goes
    /// through the whole chain, so it carries a fresh token. The loop ends without error when the stream ends
    /// normally or a reconnection is answered `204`; it throws on any status or error the policy doesn't retry, and
    /// when ``EventStreamReconnection/maximumAttempts`` reconnections in a row delivered no event.
    public func events(reconnecting reconnection: EventStreamReconnection) -> ServerSentEvents {
        ServerSentEvents(stream: self, reconnection: reconnection)
    }
}

/// How a Server-Sent Events loop reconnects: see ``ResponseStream/events(reconnecting:)``.
public struct EventStreamReconnection: Sendable {
    /// The wait before a reconnection while the server has sent no `retry:` field.
    public var defaultDelay: Duration
    /// The longest wait, whatever the server's `retry:` says.
    public var maximumDelay: Duration
    /// How many reconnections in a row may fail to deliver an event before the loop throws;
    /// `nil` takes the configuration's ``RetryPolicy/maximumAttempts`` less one.
    public var maximumAttempts: Int?

    /// Creates a reconnection policy; each argument is described on its property.
    public init(
        defaultDelay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60), maximumAttempts: Int? = nil
    ) {
        self.defaultDelay = defaultDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// 3 seconds by default, at most 60, as many attempts as the retry policy.
    public static var automatic: EventStreamReconnection { EventStreamReconnection() }
}

/// A streamed body read as Server-Sent Events: see ``ResponseStream/events`` and
/// ``ResponseStream/events(reconnecting:)``.
public struct ServerSentEvents: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent

    let stream: ResponseStream
    let reconnection: EventStreamReconnection?

    /// Sends the request and returns an iterator over its events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: stream, reconnection: reconnection)
    }

    /// Reads events as they arrive. Dropping it before the end closes the connection.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let stream: ResponseStream
        private let reconnection: EventStreamReconnection?
        private var lines: ResponseLines.AsyncIterator
        private var parser = ServerSentEventParser()
        /// Reconnections since the last delivered event.
        private var failedAttempts = 0

        init(stream: ResponseStream, reconnection: EventStreamReconnection?) {
            self.stream = stream
            self.reconnection = reconnection
            self.lines = ResponseLines(stream: stream, breaks: .eventStream).makeAsyncIterator()
        }

        /// The next event, `nil` at the end; throws the stream's ``BaseServerError`` after any allowed reconnections.
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                do {
                    while let line = try await lines.next() {
                        if let event = parser.read(line: line) {
                            failedAttempts = 0
                            return event
                        }
                    }
                    return nil
                } catch {
                    try await reconnect(after: error)
                }
            }
        }

        /// Waits and opens a new connection after `error`, or rethrows it.
        private mutating func reconnect(after error: any Error) async throws {
            guard let reconnection, let error = error as? BaseServerError, Self.isRetryable(error, stream: stream)
            else { throw error }
            let policy = stream.retryPolicy
            let limit = reconnection.maximumAttempts ?? Swift.max(policy.maximumAttempts - 1, 0)
            guard failedAttempts < limit else { throw error }
            failedAttempts += 1
            let delay = Swift.min(parser.retry ?? reconnection.defaultDelay, reconnection.maximumDelay)
            do {
                try await stream.configuration.clock.pause(for: delay)
            } catch {
                throw BaseServerError.cancelled
            }
            parser.reconnected()
            var next = stream
            if let id = parser.reconnectionLastEventId { next = stream.adding(header: "Last-Event-ID", value: id) }
            lines = ResponseLines(stream: next, breaks: .eventStream).makeAsyncIterator()
        }

        private static func isRetryable(_ error: BaseServerError, stream: ResponseStream) -> Bool {
            if error.code == .cancelled { return false }
            if error.code == .connectionLost || error.code == .timeout { return true }
            let policy = stream.retryPolicy
            if let status = error.statusCode, error.code == .badStatus || error.code == .server {
                return policy.retryableStatuses.contains(status)
            }
            return policy.retryableErrors.contains(error.code)
        }
    }
}

/// One event of a `text/event-stream` response (Server-Sent Events).
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event:` field of the event, `"message"` when there was none.
    public var event: String
    /// The `data:` fields of the event joined with a line feed (`"\n"`), without a final one.
    public var data: String
    /// The stream's last event ID when this event was dispatched (the last `id:` field so far, `nil` before any);
    /// a reconnection sends it as `Last-Event-ID`, unless empty (an empty `id:` resets it).
    public var id: String?
    /// The reconnection time the stream set with a `retry:` field, if any so far.
    public var retry: Duration?

    /// Creates an event; the arguments are the properties of the same names.
    public init(event: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// Reads Server-Sent Events line by line as the HTML Living Standard's event-stream interpretation says, with no I/O.
///
/// Fields: `event`, `data` (lines joined with `LF`), `id` (ignored if it holds `NUL`), `retry` (digits only,
/// milliseconds); others are ignored, a `:` line is a comment, and an empty line dispatches the event unless it has
/// no data. An event cut off by the stream's end is dropped. An `id` fills the ID *buffer*, which becomes
/// ``lastEventId`` (sent as `Last-Event-ID` on reconnection) only when an empty line ends the event, even one
/// without data: so a connection cut between an event's `id` and its end asks for that event again.
struct ServerSentEventParser {
    private var eventType = ""
    private var data = ""
    private var hasData = false
    /// The ID the event being read carries so far: the last `id` field seen.
    private var idBuffer: String?
    /// The stream's last event ID, set when an event ends; kept across events and reconnections.
    private(set) var lastEventId: String?
    /// The reconnection time, kept across events and reconnections.
    private(set) var retry: Duration?
    /// The stream's first line may start with a byte order mark, which is not part of it.
    private var atStart = true

    init(lastEventId: String? = nil, retry: Duration? = nil) {
        self.idBuffer = lastEventId
        self.lastEventId = lastEventId
        self.retry = retry
    }

    /// Reads one line (without its line break); returns the event an empty line dispatches.
    mutating func read(line: String) -> ServerSentEvent? {
        var line = Substring(line)
        if atStart {
            atStart = false
            if line.first == "\u{FEFF}" { line = line.dropFirst() }
        }
        if line.isEmpty { return dispatch() }
        if line.first == ":" { return nil }
        let colon = line.firstIndex(of: ":") ?? line.endIndex
        let field = line[..<colon]
        var value = colon == line.endIndex ? "" : line[line.index(after: colon)...]
        if value.first == " " { value = value.dropFirst() }
        switch field {
        case "event":
            eventType = String(value)
        case "data":
            if hasData { data.append("\n") }
            data.append(contentsOf: value)
            hasData = true
        case "id":
            if !value.contains("\u{0}") { idBuffer = String(value) }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let milliseconds = Int(value) {
                retry = .milliseconds(milliseconds)
            }
        default:
            break
        }
        return nil
    }

    /// The `Last-Event-ID` a reconnection sends: the last event ID only if non-empty, as the standard says.
    var reconnectionLastEventId: String? { lastEventId?.isEmpty == false ? lastEventId : nil }

    /// Starts a new connection: drops the event being read and its ID; the last event ID and retry time stay.
    mutating func reconnected() {
        self = ServerSentEventParser(lastEventId: lastEventId, retry: retry)
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            eventType = ""
            data = ""
            hasData = false
        }
        lastEventId = idBuffer
        guard hasData else { return nil }
        return ServerSentEvent(
            event: eventType.isEmpty ? "message" : eventType, data: data, id: lastEventId, retry: retry)
    }
}
