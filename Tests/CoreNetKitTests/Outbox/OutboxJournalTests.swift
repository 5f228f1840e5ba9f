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

/// Issue 44: the journal's format read back whole, torn and damaged (pure, no I/O), and the
/// file store opening a torn journal.
@Suite struct OutboxJournalTests {
    static func entry(_ seq: Int, queue: String = "q") throws -> OutboxEntry {
        let request = try OutboxRequest(
            ServerRequest(
                method: .post, baseUrl: URL(string: "http://127.0.0.1:1")!,
                relativeUrl: "/outbox/apply/\(queue)/\(seq)",
                parameters: .jsonObject(["seq": .int(seq), "note": "é ✓"])))
        return OutboxEntry(
            id: OutboxEntry.ID("id-\(seq)"), kind: "apply", queue: queue, idempotencyKey: "key-\(seq)",
            enqueuedAt: Date(timeIntervalSince1970: 1_767_225_600), request: request)
    }

    /// A journal of three records; returns its bytes and where the last record starts.
    static func journal() throws -> (bytes: [UInt8], lastStart: Int, records: [OutboxJournal.Record]) {
        let records: [OutboxJournal.Record] = [
            .added(try entry(1)),
            .succeeded(OutboxEntry.ID("id-1"), OutboxResponse(statusCode: 201, body: Data("{}".utf8))),
            .added(try entry(2)),
        ]
        var bytes = OutboxJournal.header
        var lastStart = 0
        for record in records {
            lastStart = bytes.count
            bytes += try OutboxJournal.frame(record)
        }
        return (bytes, lastStart, records)
    }

    @Test func aWholeJournalReadsBackEveryRecord() throws {
        let (bytes, _, records) = try Self.journal()

        let contents = try OutboxJournal.read(bytes, path: "j")

        #expect(contents.records == records)
        #expect(contents.damage == nil)
        #expect(contents.validLength == bytes.count)
    }

    @Test func cuttingTheLastRecordAtEveryByteKeepsEveryWholeRecordAndReportsTheCutOne() throws {
        let (bytes, lastStart, records) = try Self.journal()

        for cut in lastStart..<bytes.count {
            let contents = try OutboxJournal.read(Array(bytes[..<cut]), path: "j")

            #expect(contents.records == Array(records.prefix(2)), "cut at \(cut)")
            #expect(contents.validLength == lastStart, "cut at \(cut)")
            if cut == lastStart {
                #expect(contents.damage == nil)
            } else {
                #expect(contents.damage?.offset == lastStart, "cut at \(cut)")
                #expect(contents.damage?.droppedBytes == cut - lastStart, "cut at \(cut)")
            }
        }
    }

    @Test func aChangedByteInTheLastRecordIsReportedAsDamage() throws {
        var (bytes, lastStart, records) = try Self.journal()
        for offset in stride(from: lastStart, to: bytes.count, by: 7) {
            var damaged = bytes
            damaged[offset] ^= 0x20

            let contents = try OutboxJournal.read(damaged, path: "j")

            #expect(contents.records == Array(records.prefix(2)), "byte \(offset)")
            #expect(contents.damage?.offset == lastStart, "byte \(offset)")
        }
        bytes[0] = UInt8(ascii: "X")
        #expect(throws: BaseServerError.self) { try OutboxJournal.read(bytes, path: "j") }
    }

    @Test func theFileStoreOpensAJournalCutAtEveryByteOfItsLastRecordKeepsTheWholeEntriesAndAppendsAfterThem()
        async throws
    {
        let (bytes, lastStart, _) = try Self.journal()
        try await withTokenFolder { folder in
            let url = folder.appendingPathComponent("outbox.journal")
            for cut in (lastStart + 1)..<bytes.count {
                try Data(bytes[..<cut]).write(to: url)

                let store = try FileOutboxStore(url: url)
                #expect(store.damage?.offset == lastStart, "cut at \(cut)")
                #expect(store.damage?.droppedBytes == cut - lastStart, "cut at \(cut)")
                #expect(try await store.undelivered().map(\.id.rawValue) == ["id-1"])
                #expect(try await store.count(in: .pending) == 0)
                try await store.add(try Self.entry(3))
                #expect(try await store.entries(in: .pending).map(\.id.rawValue) == ["id-3"])
            }
            let reopened = try FileOutboxStore(url: url)
            #expect(reopened.damage == nil)
            #expect(try await reopened.entries(in: .pending).map(\.id.rawValue) == ["id-3"])
        }
    }

    @Test func theStoreHandsOutOneEntryPerQueueInOrder() async throws {
        try await withTokenFolder { folder in
            let store = try FileOutboxStore(url: folder.appendingPathComponent("outbox.journal"))
            for (seq, queue) in [(1, "a"), (2, "a"), (3, "b")] {
                try await store.add(try Self.entry(seq, queue: queue))
            }
            let gate = Once<Void>()
            let claimed = Once<String>()

            let first = Task {
                try await store.sendNext { entry in
                    claimed.fire(entry.id.rawValue)
                    await gate.value
                    return .succeeded(OutboxResponse(statusCode: 201, body: Data()))
                }
            }
            #expect(await claimed.value == "id-1")
            let second = try await store.sendNext { _ in nil }
            let third = try await store.sendNext { _ in nil }
            gate.fire(())
            _ = try await first.value
            let fourth = try await store.sendNext { _ in nil }

            #expect(second?.id.rawValue == "id-3")
            #expect(third == nil || third?.id.rawValue == "id-3")
            #expect(fourth?.id.rawValue == "id-2")
        }
    }

    @Test func compactionKeepsTheLiveEntriesOnly() async throws {
        try await withTokenFolder { folder in
            let url = folder.appendingPathComponent("outbox.journal")
            do {
                let store = try FileOutboxStore(url: url, compactionThreshold: 2048)
                for seq in 0..<40 {
                    try await store.add(try Self.entry(seq))
                    if seq < 38 { #expect(try await store.remove(OutboxEntry.ID("id-\(seq)"))) }
                }
            }
            let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
            let reopened = try FileOutboxStore(url: url)

            #expect(size < 4096)
            #expect(try await reopened.entries(in: .pending).map(\.id.rawValue) == ["id-38", "id-39"])
        }
    }
}
