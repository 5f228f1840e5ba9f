//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

/// The retry policy's bound across restarts: each attempt to send an entry is counted in the
/// journal before its request goes out, so a process that keeps dying mid-send does not retry
/// forever.
@Suite(.timeLimit(.minutes(3))) struct OutboxAttemptTests {
    @Test func anEntryCutShortOnEveryRestartFailsOnceThePolicysAttemptsAreUsedAndIsNotSentAgain() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let fixture = OutboxFixture(folder: folder)
                let policy = OutboxFixture.policy(attempts: 3)
                let gate = "outbox-attempts-\(UUID().uuidString)"
                let id = try await fixture.outbox(policy: policy).0.enqueue(
                    applyChange(server.baseURL, seq: 1, query: "gate=\(gate)"), kind: "apply")

                // Each run's request is held by the server until the outbox stops: the send of a
                // process that died before the answer came.
                for run in 1...3 {
                    let (outbox, _) = try fixture.outbox(policy: policy)
                    outbox.start()
                    try await server.waitForArrivals(at: gate, count: run, timeout: .seconds(30))
                    await outbox.stop()
                    #expect(try await outbox.pending().map(\.attempts) == [run])
                }
                let (outbox, log) = try fixture.outbox(policy: policy)
                outbox.start()
                let outcome = try #require(try await log.wait(for: 1).first)
                await outbox.stop()

                #expect(outcome.id == id)
                #expect(outcome.error?.message?.contains("gave up after 3 attempts") == true)
                #expect(try await outbox.failed().map(\.id) == [id])
                #expect(try await outbox.failed().first?.attempts == 3)
                #expect(try await outbox.count() == 0)
                #expect(server.arrivals(at: gate) == 3)
                #expect(server.outbox.totalEffects == 0)
            }
        }
    }

    @Test func attemptRecordsSurviveCompactionAndReopeningWithTheirCounts() async throws {
        try await withTokenFolder { folder in
            let url = folder.appendingPathComponent("outbox.journal")
            do {
                let store = try FileOutboxStore(url: url, compactionThreshold: 2048)
                try await store.add(try OutboxJournalTests.entry(1, queue: "a"))
                try await store.add(try OutboxJournalTests.entry(2, queue: "b"))
                try await store.recordAttempts(3, of: OutboxEntry.ID("id-1"))
                let failed = try await store.sendNext { _ in
                    .failed(OutboxFailure(BaseServerError.badStatus(400, body: nil)))
                }
                #expect(failed?.id.rawValue == "id-1")
                for attempts in 1...100 { try await store.recordAttempts(attempts, of: OutboxEntry.ID("id-2")) }
            }
            let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
            let reopened = try FileOutboxStore(url: url)

            #expect(size < 3072, "100 attempt records were not compacted away: \(size) bytes")
            #expect(reopened.damage == nil)
            #expect(try await reopened.entries(in: .pending).map(\.attempts) == [100])
            #expect(try await reopened.entries(in: .failed).map(\.attempts) == [3])
        }
    }

    @Test func aJournalCutInsideItsLastAttemptRecordOpensWithTheCountBeforeIt() async throws {
        var bytes = OutboxJournal.header + (try OutboxJournal.frame(.added(try OutboxJournalTests.entry(1))))
        bytes += try OutboxJournal.frame(.attempted(OutboxEntry.ID("id-1"), 1))
        let lastStart = bytes.count
        bytes += try OutboxJournal.frame(.attempted(OutboxEntry.ID("id-1"), 2))
        try await withTokenFolder { folder in
            let url = folder.appendingPathComponent("outbox.journal")
            for cut in (lastStart + 1)..<bytes.count {
                try Data(bytes[..<cut]).write(to: url)

                let store = try FileOutboxStore(url: url)

                #expect(store.damage?.offset == lastStart, "cut at \(cut)")
                #expect(try await store.entries(in: .pending).map(\.attempts) == [1], "cut at \(cut)")
            }
            try Data(bytes).write(to: url)
            #expect(try await FileOutboxStore(url: url).entries(in: .pending).map(\.attempts) == [2])
        }
    }

    @Test func aJournalWrittenBeforeAttemptsWereCountedOpensWithNoneAndCountsFromThere() async throws {
        // An `added` record as the journal held it before entries carried `attempts`.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let record = try encoder.encode(OutboxJournal.Record.added(try OutboxJournalTests.entry(1)))
        var json = try #require(try JSONSerialization.jsonObject(with: record) as? [String: Any])
        var added = try #require(json["added"] as? [String: Any])
        var entry = try #require(added["_0"] as? [String: Any])
        #expect(entry.removeValue(forKey: "attempts") != nil)
        added["_0"] = entry
        json["added"] = added
        let payload = Array(try JSONSerialization.data(withJSONObject: json))
        var bytes = OutboxJournal.header
        for value in [UInt32(payload.count), CRC32.checksum(payload)] {
            bytes += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        }
        bytes += payload
        try await withTokenFolder { folder in
            let url = folder.appendingPathComponent("outbox.journal")
            try Data(bytes).write(to: url)
            do {
                let store = try FileOutboxStore(url: url)

                #expect(store.damage == nil)
                #expect(try await store.entries(in: .pending).map(\.attempts) == [0])
                try await store.recordAttempts(1, of: OutboxEntry.ID("id-1"))
            }
            #expect(try await FileOutboxStore(url: url).entries(in: .pending).map(\.attempts) == [1])
        }
    }
}
