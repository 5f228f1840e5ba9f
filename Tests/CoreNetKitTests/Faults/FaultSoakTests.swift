//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Dispatch
import Foundation
import Testing

@testable import CoreNetKit

/// A small deterministic generator (SplitMix64), so a failing soak or fuzz can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Counts, per request, the terminal events its context delivered and the times `value` returned.
final class SoakLedger: Sendable {
    struct Counts: Sendable {
        var success = 0
        var failure = 0
        var cancel = 0
        var valueReturns = 0
        var untyped: [String] = []
        var terminal: Int { success + failure + cancel }
    }
    private let counts: Locked<[Counts]>

    init(count: Int) { counts = Locked(Array(repeating: Counts(), count: count)) }

    func record(_ index: Int, _ change: @Sendable (inout Counts) -> Void) {
        counts.withLock { change(&$0[index]) }
    }

    var all: [Counts] { counts.withLock { $0 } }
}

@Suite(.timeLimit(.minutes(3))) struct FaultSoakTests {
    static let requests = 2_000
    static let concurrency = 32

    /// The mix: mostly faults that answer at once, a few that hold a connection until the timeout.
    /// On FoundationNetworking, `survivableFaults` leaves out `.statusLineThenEOF` and
    /// `.chunkedTrailer`: they abort the process there (swift-corelibs-foundation #5285).
    static func pick(_ generator: inout SeededGenerator) -> FaultServer.Fault {
        let slowShare = UInt64.random(in: 0..<100, using: &generator)
        if slowShare < 2 { return .slow }
        let quick = survivableFaults.filter { $0 != .slow }
        return quick[Int.random(in: 0..<quick.count, using: &generator)]
    }

    @Test(.timeLimit(.minutes(5)))
    func soakOfFaultsGivesEveryContextExactlyOneTerminalEventAndEmptiesThePool() async throws {
        try await withFaultServer { faults in
            let queue = DispatchQueue(label: "tests.soak.callbacks")
            let configuration = testConfiguration(queue: queue)
            let ledger = SoakLedger(count: Self.requests)
            var generator = SeededGenerator(seed: 0x5EED_0012)
            var plan: [(fault: FaultServer.Fault, cancelAfter: Double?)] = []
            for _ in 0..<Self.requests {
                let fault = Self.pick(&generator)
                let cancel = UInt64.random(in: 0..<10, using: &generator) == 0
                plan.append((fault, cancel ? Double.random(in: 0...0.05, using: &generator) : nil))
            }
            // A slow fault cancelled within 50 ms is always cancelled before its 0.5 s timeout: the
            // seeded plan has some, so the soak always sees cancels, whatever the timing.
            #expect(plan.contains { $0.fault == .slow && $0.cancelAfter != nil })
            let started = ContinuousClock.now

            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, step) in plan.enumerated() {
                    if index >= Self.concurrency { try await group.next() }
                    group.addTask {
                        try await Self.run(
                            step.fault, cancelAfter: step.cancelAfter, index: index,
                            faults: faults, configuration: configuration, ledger: ledger)
                    }
                }
                try await group.waitForAll()
            }
            await drain(queue)
            print(
                "soak: \(Self.requests) requests at c=\(Self.concurrency) on \(type(of: sharedTestTransport)) in \(ContinuousClock.now - started)"
            )

            let all = ledger.all
            #expect(
                all.allSatisfy { $0.terminal == 1 },
                "terminal counts: \(Dictionary(grouping: all.map(\.terminal), by: { $0 }).mapValues(\.count))")
            #expect(all.allSatisfy { $0.valueReturns == 1 })
            #expect(all.flatMap(\.untyped).isEmpty, "\(all.flatMap(\.untyped).prefix(5))")
            #expect(configuration.taskPool.isEmpty)
            #expect(
                all.contains { $0.cancel == 1 } && all.contains { $0.success == 1 } && all.contains { $0.failure == 1 })
        }
    }

    private static func run(
        _ fault: FaultServer.Fault, cancelAfter: Double?, index: Int, faults: FaultServer,
        configuration: NetworkConfiguration, ledger: SoakLedger
    ) async throws {
        let timeout: TimeInterval = fault == .slow ? 0.5 : 20
        let context = faults.request(fault, configuration: configuration, timeout: timeout).perform()
        let terminal = Once<Void>()
        context
            .onSuccess { _ in
                ledger.record(index) { $0.success += 1 }
                terminal.fire(())
            }
            .onError { error in
                ledger.record(index) { counts in
                    counts.failure += 1
                    if !(error is BaseServerError) { counts.untyped.append("\(fault): \(error)") }
                }
                terminal.fire(())
            }
            .onCancel {
                ledger.record(index) { $0.cancel += 1 }
                terminal.fire(())
            }
        if let cancelAfter {
            DispatchQueue.global().asyncAfter(deadline: .now() + cancelAfter) { context.cancel() }
        }
        do {
            _ = try await withTimeout(60, "value of \(fault)") { try await context.value }
        } catch let error as TimedOut {
            ledger.record(index) { $0.untyped.append("\(fault): \(error)") }
        } catch {}
        ledger.record(index) { $0.valueReturns += 1 }
        try await withTimeout(60, "terminal event of \(fault)") { await terminal.value }
    }
}
