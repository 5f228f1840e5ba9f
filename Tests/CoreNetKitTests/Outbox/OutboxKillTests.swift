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

/// Issue 44, done when: a child process queues 200 changes and is killed with SIGKILL at a random
/// moment while sending; a new process on the same journal drains the rest. Every change is
/// applied exactly once, none is lost, and each queue's changes are applied in order.
@Suite(.serialized, .timeLimit(.minutes(10))) struct OutboxKillTests {
    static let changes = 200
    static let queues = 4
    /// `CORENETKIT_OUTBOX_KILL_RUNS` overrides it.
    static let runs = ProcessInfo.processInfo.environment["CORENETKIT_OUTBOX_KILL_RUNS"].flatMap(Int.init) ?? 20

    @Test func aProcessKilledWhileSendingLosesNoChangeAndTheNextAppliesEachOnceInOrder() async throws {
        let child = try FleetFixture.child()
        for run in 1...Self.runs {
            try await withTestServer { server in
                try await withTokenFolder { folder in
                    let store = "file:" + folder.appendingPathComponent("outbox.journal").path
                    let killAfter = Int.random(in: 0..<Self.changes)

                    // Odd runs send while they queue; even runs queue everything first, then send a backlog.
                    let first = try ChildProcess.start(
                        child,
                        ["--outbox-enqueue", store, server.baseURL.absoluteString, "\(Self.changes)", "\(Self.queues)"]
                            + (run % 2 == 0 ? ["enqueue-first"] : []))
                    try await server.outbox.waitForEffects(killAfter)
                    first.kill()
                    _ = try await first.finished()
                    let enqueued = first.lines.filter { $0.hasPrefix("ENQ ") }.count
                    let appliedBeforeKill = server.outbox.totalEffects
                    let second = try ChildProcess.start(
                        child, ["--outbox-drain", store, server.baseURL.absoluteString])
                    let status = try await second.finished()

                    #expect(status == 0, "run \(run): the draining process failed")
                    #expect(second.lines.contains { $0.hasPrefix("DRAINED") }, "run \(run)")
                    Self.verify(server.outbox, enqueued: enqueued, run: run, killedAfter: killAfter)
                    print(
                        "OUTBOX-KILL run \(run): killed at \(appliedBeforeKill) applied, \(enqueued) queued; "
                            + "the next process applied \(server.outbox.totalEffects - appliedBeforeKill) more; "
                            + "\(server.outbox.hitsByKey.values.filter { $0 > 1 }.count) sent again with their key")
                    #expect(
                        try await FileOutboxStore(url: folder.appendingPathComponent("outbox.journal")).count(
                            in: .pending) == 0)
                }
            }
        }
    }

    /// Each queue's applied changes are its changes from the first, in order, without a gap or a
    /// repeat; every change whose `enqueue` returned is among them.
    static func verify(_ ledger: OutboxLedger, enqueued: Int, run: Int, killedAfter: Int) {
        var total = 0
        for queue in 0..<queues {
            let applied = ledger.applied(queue: "q\(queue)")
            let expected = Array(stride(from: queue, to: changes, by: queues).prefix(applied.count))
            #expect(applied == expected, "run \(run) (killed after \(killedAfter)): queue q\(queue) applied \(applied)")
            total += applied.count
        }
        #expect(total >= enqueued, "run \(run): \(enqueued) queued, \(total) applied")
        #expect(ledger.totalEffects == total, "run \(run)")
        #expect(ledger.unkeyedRequests == 0, "run \(run)")
    }
}

/// A child process whose output lines are collected; every wait is bounded.
final class ChildProcess: Sendable {
    private let process: Process
    private let output = Locked((buffer: [UInt8](), lines: [String]()))
    private let closed = Once<Void>()
    private let exited = Once<Int32>()

    private init(process: Process) { self.process = process }

    static func start(_ executable: URL, _ arguments: [String]) throws -> ChildProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        let child = ChildProcess(process: process)
        process.terminationHandler = { child.exited.fire($0.terminationStatus) }
        try process.run()
        let reading = pipe.fileHandleForReading
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reading.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                child.append(buffer[..<count])
            }
            child.closed.fire(())
        }
        reader.start()
        return child
    }

    var lines: [String] { output.withLock { $0.lines } }

    func kill() { sendKillSignal(process.processIdentifier) }

    /// Waits for the process to exit and its output to end; returns its exit status.
    func finished(timeout: Double = 120) async throws -> Int32 {
        let status = try await withTimeout(timeout, "the child to exit") { await self.exited.value }
        try await withTimeout(timeout, "the child's output to end") { await self.closed.value }
        return status
    }

    private func append(_ bytes: ArraySlice<UInt8>) {
        output.withLock { output in
            output.buffer += bytes
            while let end = output.buffer.firstIndex(of: 0x0A) {
                output.lines.append(String(decoding: output.buffer[..<end], as: UTF8.self))
                output.buffer.removeSubrange(...end)
            }
        }
    }
}

/// SIGKILL to `pid`, out of reach of ``ChildProcess/kill()``'s name.
private func sendKillSignal(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}
