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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An outbox on a fresh journal, with a manual clock, a retry log and the outcomes collected.
struct OutboxFixture {
    let clock = ManualClock()
    let log = AttemptLog()
    let folder: URL
    let configuration: NetworkConfiguration

    init(folder: URL, _ adjust: (inout NetworkConfiguration) -> Void = { _ in }) {
        self.folder = folder
        var configuration = testConfiguration()
        configuration.clock = clock
        configuration.logger = log
        adjust(&configuration)
        self.configuration = configuration
    }

    var journal: URL { folder.appendingPathComponent("outbox.journal") }

    /// A policy that waits exactly `baseDelay × 2ⁿ⁻¹` (no jitter).
    static func policy(attempts: Int = 5, baseDelay: Duration = .seconds(1)) -> RetryPolicy {
        var policy = Outbox.Options.defaultRetryPolicy
        policy.maximumAttempts = attempts
        policy.baseDelay = baseDelay
        policy.jitter = { 1 }
        return policy
    }

    func outbox(
        store: (any OutboxStore)? = nil, policy: RetryPolicy = Self.policy(), concurrency: Int = 4
    ) throws -> (Outbox, OutcomeLog) {
        let outbox = Outbox(
            store: try store ?? FileOutboxStore(url: journal), configuration: configuration,
            options: Outbox.Options(retryPolicy: policy, concurrency: concurrency))
        outbox.register("apply", as: AppliedChange.self)
        return (outbox, OutcomeLog(outbox.outcomes()))
    }
}

/// `POST /outbox/apply/:queue/:seq`.
func applyChange(
    _ baseURL: URL, queue: String = "q", seq: Int, query: String = "", headers: [String: String] = [:],
    body: JSON = ["note": "change"]
) -> ServerRequest {
    ServerRequest(
        method: .post, baseUrl: baseURL,
        relativeUrl: "/outbox/apply/\(queue)/\(seq)" + (query.isEmpty ? "" : "?\(query)"),
        headers: headers, parameters: .jsonObject(body))
}

/// `/outbox/apply`'s answer.
struct AppliedChange: Decodable, Sendable, Equatable {
    let queue: String
    let seq: Int
}

/// Every outcome of an outbox, read from one ``Outbox/outcomes()`` sequence.
final class OutcomeLog: Sendable {
    private struct State {
        var outcomes: [OutboxOutcome] = []
        var waiters: [(count: Int, once: Once<Void>)] = []
    }
    private let state = Locked(State())
    private let reader: Task<Void, Never>

    init(_ outcomes: AsyncStream<OutboxOutcome>) {
        let state = self.state
        reader = Task {
            for await outcome in outcomes {
                let ready = state.withLock { state -> [Once<Void>] in
                    state.outcomes.append(outcome)
                    let count = state.outcomes.count
                    defer { state.waiters.removeAll { $0.count <= count } }
                    return state.waiters.filter { $0.count <= count }.map(\.once)
                }
                for once in ready { once.fire(()) }
            }
        }
    }

    deinit { reader.cancel() }

    var outcomes: [OutboxOutcome] { state.withLock { $0.outcomes } }

    /// Returns the first `count` outcomes once they arrived.
    func wait(for count: Int, timeout: Double = 60) async throws -> [OutboxOutcome] {
        let once = Once<Void>()
        let ready = state.withLock { state -> Bool in
            if state.outcomes.count >= count { return true }
            state.waiters.append((count, once))
            return false
        }
        if !ready { try await withTimeout(timeout, "\(count) outbox outcomes") { await once.value } }
        return Array(outcomes.prefix(count))
    }
}

/// A loopback port that refuses connections until ``open()``: a socket bound to it that never
/// listens, closed to let a server take the port.
final class RefusedPort: Sendable {
    let port: Int
    private let descriptor: Locked<Int32>

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = Locked(fd)
    }

    /// Frees the port.
    func open() {
        descriptor.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    deinit { open() }
}

/// Every byte of every file in `folder`, as text (invalid UTF-8 replaced).
func storedText(in folder: URL) throws -> String {
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    return try names.map { name in
        String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            .replacingOccurrences(of: "\0", with: " ")
    }.joined(separator: "\n")
}
