//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// Gates: deterministic "hold this request until the test says so".
///
/// A request that reaches a closed gate is counted and parked on a `CheckedContinuation` kept in
/// ``ServerState``; `release` resumes every parked request and lets later ones through until
/// `close`. Stopping the server (or cancelling the request's task) resumes parked requests too,
/// so shutdown never hangs.
extension ServerCore {
    /// Counts an arrival at `gate` and suspends until the gate is open or the server stops.
    func passGate(_ gate: String) async {
        let id = self.state.withLockedValue { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (passNow, satisfied) = self.state.withLockedValue { state in
                    state.gates[gate, default: ServerState.Gate()].arrivals += 1
                    let gateState = state.gates[gate]!
                    let satisfied = state.takeSatisfiedWaiters(gate: gate, arrivals: gateState.arrivals)
                    let passNow = gateState.isOpen || state.isStopped || Task.isCancelled
                    if !passNow {
                        state.gates[gate]!.held[id] = continuation
                    }
                    return (passNow, satisfied)
                }
                for waiter in satisfied { waiter.resume() }
                if passNow { continuation.resume() }
            }
        } onCancel: {
            let held = self.state.withLockedValue { $0.gates[gate]?.held.removeValue(forKey: id) }
            held?.resume()
        }
    }

    /// Counts an arrival at `gate` without ever holding it: for waiting until a number of
    /// requests reached a point of the server (for example, were answered with a rejection).
    func countArrival(at gate: String) {
        let satisfied = self.state.withLockedValue { state in
            state.gates[gate, default: ServerState.Gate()].arrivals += 1
            return state.takeSatisfiedWaiters(gate: gate, arrivals: state.gates[gate]!.arrivals)
        }
        for waiter in satisfied { waiter.resume() }
    }

    /// How many requests reached `gate` so far.
    func arrivals(at gate: String) -> Int {
        self.state.withLockedValue { $0.gates[gate]?.arrivals ?? 0 }
    }

    /// Suspends until `gate` has seen `count` arrivals, throwing `TestServerError.timedOut` after `timeout`.
    func waitForArrivals(at gate: String, count: Int, timeout: Duration) async throws {
        let id = self.state.withLockedValue { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = self.state.withLockedValue { state in
                    if (state.gates[gate]?.arrivals ?? 0) >= count { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.arrivalWaiters[id] = ServerState.ArrivalWaiter(
                        gate: gate, count: count, continuation: continuation)
                    return nil
                }
                if let immediate {
                    continuation.resume(with: immediate)
                    return
                }
                let error = TestServerError.timedOut(
                    "Timed out after \(timeout) waiting for \(count) arrival(s) at gate \"\(gate)\""
                )
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.dispatchInterval(timeout)) {
                    self.failArrivalWaiter(id, with: error)
                }
            }
        } onCancel: {
            self.failArrivalWaiter(id, with: CancellationError())
        }
    }

    /// Opens `gate`: resumes every held request and lets future ones through until `close`.
    func release(_ gate: String) {
        let held = self.state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.gates[gate, default: ServerState.Gate()].isOpen = true
            let held = Array(state.gates[gate]!.held.values)
            state.gates[gate]!.held.removeAll()
            return held
        }
        for continuation in held { continuation.resume() }
    }

    /// Closes `gate` again: future requests are held.
    func close(_ gate: String) {
        self.state.withLockedValue { $0.gates[gate, default: ServerState.Gate()].isOpen = false }
    }

    /// Marks the server stopped and resumes every held request. Later arrivals pass straight through.
    func releaseAllGatesForShutdown() {
        let held = self.state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.isStopped = true
            var held: [CheckedContinuation<Void, Never>] = []
            for name in state.gates.keys {
                held.append(contentsOf: state.gates[name]!.held.values)
                state.gates[name]!.held.removeAll()
            }
            return held
        }
        for continuation in held { continuation.resume() }
    }

    private func failArrivalWaiter(_ id: Int, with error: any Error) {
        let waiter = self.state.withLockedValue { $0.arrivalWaiters.removeValue(forKey: id) }
        waiter?.continuation.resume(throwing: error)
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .nanoseconds(0) }
        guard seconds < 1_000_000_000 else { return .seconds(1_000_000_000) }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
