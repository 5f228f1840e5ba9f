//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// A fleet of `corenetkit-fleet-child` processes sharing one token store, for the cross-process
/// refresh tests and the fleet benchmark: start them, let them all go at once, kill one, collect
/// what each reports. Every wait is bounded; nothing sleeps.
public final class Fleet: Sendable {
    /// What one child printed at the end (times in milliseconds since 1970).
    public struct Report: Decodable, Sendable {
        public let successes: Int
        public let failures: [String: Int]
        public let sessionEnds: Int
        public let startedAt: Int64
        public let lastSuccessAt: Int64?
    }

    private final class Member: Sendable {
        let process: Process
        let input: FileHandle
        let ready = Signal<Void>()
        /// Fired by `WAITING`: every request of the child waits for a refresh.
        let waiting = Signal<Void>()
        let exited = Signal<Int32>()
        /// Fired by the report line, or by the end of the output (a child killed before it reported).
        let closed = Signal<Void>()
        let output = NIOLockedValueBox((buffer: [UInt8](), report: String?.none))

        init(process: Process, input: FileHandle) {
            self.process = process
            self.input = input
        }
    }

    private let members: [Member]

    private init(members: [Member]) { self.members = members }

    deinit {
        for member in members where member.process.isRunning { sendKill(member.process.processIdentifier) }
    }

    /// The child binary: `corenetkit-fleet-child` beside the running executable (or in a folder
    /// above it, for a test bundle), or `CORENETKIT_FLEET_CHILD`.
    public static func childExecutable() -> URL? {
        if let path = ProcessInfo.processInfo.environment["CORENETKIT_FLEET_CHILD"] {
            return URL(fileURLWithPath: path)
        }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = folder.appendingPathComponent("corenetkit-fleet-child")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// Starts `count` children with `arguments(index)` and returns once each has printed `READY`.
    public static func launch(
        _ count: Int, executable: URL, environment: [String: String] = [:], timeout: Duration = .seconds(60),
        arguments: (Int) -> [String]
    ) async throws -> Fleet {
        var members: [Member] = []
        for index in 0..<count {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments(index)
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            let member = Member(process: process, input: input.fileHandleForWriting)
            process.terminationHandler = { member.exited.fire($0.terminationStatus) }
            try process.run()
            // A blocking reader per child: FoundationNetworking's readabilityHandler was seen to
            // miss a child's end of output (the fleet benchmark timed out waiting for it).
            // POSIX read, not FileHandle.availableData, which traps on EINTR (a SIGCHLD).
            let reading = output.fileHandleForReading
            let reader = Thread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { readBytes(reading.fileDescriptor, $0) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    Self.read(Data(buffer[..<count]), into: member)
                }
                member.closed.fire(())
            }
            reader.name = "Fleet.child-\(index).stdout"
            reader.start()
            members.append(member)
        }
        let fleet = Fleet(members: members)
        for (index, member) in members.enumerated() {
            try await member.ready.wait(timeout: timeout, "child \(index) to start")
        }
        return fleet
    }

    /// Tells every child to send its requests, as close to at once as the pipes allow.
    public func go() {
        for member in members { member.input.write(Data("GO\n".utf8)) }
    }

    /// Returns once every child (started with `--report-waiting`) has said that all its
    /// requests wait for a refresh.
    public func everyRequestWaits(timeout: Duration = .seconds(60)) async throws {
        for (index, member) in members.enumerated() {
            try await member.waiting.wait(timeout: timeout, "every request of child \(index) to wait for the refresh")
        }
    }

    /// The process id of child `index`.
    public func processIdentifier(_ index: Int) -> Int32 { members[index].process.processIdentifier }

    /// Kills child `index` with SIGKILL.
    public func kill(_ index: Int) {
        sendKill(members[index].process.processIdentifier)
    }

    /// Waits for every child to exit; the report of each (`nil` for one that was killed or printed none).
    public func reports(timeout: Duration = .seconds(120)) async throws -> [Report?] {
        var reports: [Report?] = []
        for (index, member) in members.enumerated() {
            _ = try await member.exited.wait(timeout: timeout, "child \(index) to finish")
            try await member.closed.wait(timeout: timeout, "child \(index)'s report or the end of its output")
            let line = member.output.withLockedValue { $0.report }
            reports.append(line.flatMap { try? JSONDecoder().decode(Report.self, from: Data($0.utf8)) })
        }
        return reports
    }

    private static func read(_ data: Data, into member: Member) {
        let lines = member.output.withLockedValue { output -> [String] in
            output.buffer.append(contentsOf: data)
            var lines: [String] = []
            while let end = output.buffer.firstIndex(of: 0x0A) {
                lines.append(String(decoding: output.buffer[..<end], as: UTF8.self))
                output.buffer.removeSubrange(...end)
            }
            if let report = lines.last(where: { $0.hasPrefix("RESULT ") }) {
                output.report = String(report.dropFirst(7))
            }
            return lines
        }
        if lines.contains("READY") { member.ready.fire(()) }
        if lines.contains("WAITING") { member.waiting.fire(()) }
        if lines.contains(where: { $0.hasPrefix("RESULT ") }) { member.closed.fire(()) }  // its last line
    }
}

/// POSIX `read` into `buffer`, out of reach of ``Fleet``'s own `read`.
private func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(fd, buffer.baseAddress, buffer.count)
}

/// SIGKILL to `pid`, out of reach of ``Fleet/kill(_:)``'s name.
private func sendKill(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}

/// A value set once and awaited with a bound.
final class Signal<Value: Sendable>: Sendable {
    private let state = NIOLockedValueBox((value: Value?.none, waiters: [CheckedContinuation<Value, any Error>]()))

    func fire(_ value: Value) {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Value, any Error>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    func wait(timeout: Duration, _ what: String) async throws -> Value {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.failAll(TestServerError.timedOut("Timed out after \(timeout) waiting for \(what)"))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> Value? in
                if state.value == nil { state.waiters.append(continuation) }
                return state.value
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func failAll(_ error: any Error) {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Value, any Error>] in
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }
}
