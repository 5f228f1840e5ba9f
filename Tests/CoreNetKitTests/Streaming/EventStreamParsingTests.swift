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

/// Line splitting and Server-Sent Events parsing as plain values, without I/O.
@Suite(.timeLimit(.minutes(3))) struct EventStreamParsingTests {
    /// Feeds `text` to a fresh parser in chunks of `size` bytes and returns the events.
    private func events(_ text: String, chunk size: Int) throws -> [ServerSentEvent] {
        var splitter = LineSplitter(breaks: .eventStream, maximumLineLength: 1 << 20)
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        let bytes = Data(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + size, bytes.count)
            for line in try splitter.split(bytes.subdata(in: start..<end)) {
                if let event = parser.read(line: line) { events.append(event) }
            }
            start = end
        }
        if let last = splitter.finish(), let event = parser.read(line: last) { events.append(event) }
        return events
    }

    @Test(arguments: [1, 2, 5, 1000])
    func theLivingStandardsExamplesParseTheSameInAnyChunking(size: Int) throws {
        let text =
            "\u{FEFF}: test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"

        let parsed = try events(text, chunk: size)

        #expect(
            parsed == [
                ServerSentEvent(data: "first event", id: "1"),
                ServerSentEvent(data: "second event", id: ""),
                ServerSentEvent(data: " third event", id: ""),
            ])
    }

    @Test(arguments: [1, 3, 1000])
    func crLFAndCRLFEndLinesAndDataLinesJoinWithLineFeeds(size: Int) throws {
        let text = "event: add\r\ndata: a\rdata: b\ndata\r\n\r\ndata: next\r\r"

        let parsed = try events(text, chunk: size)

        #expect(parsed == [ServerSentEvent(event: "add", data: "a\nb\n"), ServerSentEvent(data: "next")])
    }

    @Test func retryTakesDigitsOnlyAndAnIDWithNULIsIgnored() throws {
        let text = "retry: 250\nid: 7\ndata: a\n\nretry: 1s\nid: x\u{0}y\ndata: b\n\n"

        let parsed = try events(text, chunk: 4)

        #expect(parsed.map(\.retry) == [.milliseconds(250), .milliseconds(250)])
        #expect(parsed.map(\.id) == ["7", "7"])
    }

    @Test func anEventWithoutDataIsNotDispatchedAndOneCutOffByTheEndIsDropped() throws {
        let text = "event: ping\n\n: comment\nunknown: field\n\ndata: cut off"

        let parsed = try events(text, chunk: 3)

        #expect(parsed.isEmpty)
    }

    @Test func anIDBecomesTheLastEventIDOnlyWhenItsEventEnds() {
        var parser = ServerSentEventParser()
        for line in ["id: 1", "data: a"] { #expect(parser.read(line: line) == nil) }
        #expect(parser.read(line: "") == ServerSentEvent(data: "a", id: "1"))

        // A connection cut after event 2's `id` but before its end: a reconnection asks after 1,
        // and event 2's ID does not stick to the next connection's first event.
        for line in ["id: 2", "data: b"] { #expect(parser.read(line: line) == nil) }
        #expect(parser.lastEventId == "1")
        parser.reconnected()
        #expect(parser.read(line: "data: c") == nil)
        #expect(parser.read(line: "") == ServerSentEvent(data: "c", id: "1"))

        // An event without data is not dispatched, but its end still sets the last event ID.
        #expect(parser.read(line: "id: 9") == nil)
        #expect(parser.read(line: "") == nil)
        #expect(parser.lastEventId == "9")
        #expect(parser.reconnectionLastEventId == "9")

        // An empty `id` resets it: a reconnection then sends no `Last-Event-ID` at all.
        for line in ["id", "data: d"] { #expect(parser.read(line: line) == nil) }
        #expect(parser.read(line: "") == ServerSentEvent(data: "d", id: ""))
        #expect(parser.lastEventId == "")
        #expect(parser.reconnectionLastEventId == nil)
    }

    @Test func jsonLinesSplitAtLFAndCRLFAndKeepALastLineWithoutABreak() throws {
        var splitter = LineSplitter(breaks: .lineFeed, maximumLineLength: 100)

        let first = try splitter.split(Data("a\r\nb\nc\r".utf8))
        let second = try splitter.split(Data("\nd".utf8))
        let last = splitter.finish()

        #expect(first == ["a", "b"])
        #expect(second == ["c"])
        #expect(last == "d")
    }

    @Test func aLineLongerThanTheLimitFailsWithResponseTooLarge() throws {
        var splitter = LineSplitter(breaks: .lineFeed, maximumLineLength: 8)

        _ = try splitter.split(Data("12345".utf8))
        let error = #expect(throws: BaseServerError.self) { try splitter.split(Data("6789".utf8)) }

        #expect(error?.code == .responseTooLarge)
    }
}
