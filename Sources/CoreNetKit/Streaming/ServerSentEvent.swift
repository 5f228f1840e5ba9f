//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

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
    var reconnectionLastEventId: String? {
        guard let lastEventId, !lastEventId.isEmpty else { return nil }
        return lastEventId
    }

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
