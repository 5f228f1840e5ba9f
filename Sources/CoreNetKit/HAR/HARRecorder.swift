//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation

/// A monitor that records every exchange of its configuration into an HTTP Archive (HAR 1.2)
/// file, which browsers' developer tools, Charles, Proxyman and Fiddler open.
///
/// ```swift
/// let recorder = try HARRecorder(file: URL(fileURLWithPath: "session.har"))
/// configuration.monitors.append(recorder)
/// // … run the app …
/// recorder.close()
/// ```
///
/// Each attempt is one entry (a retried request is two), an answer of the cache is an entry
/// marked `"_fromCache": "disk"`, and an attempt that failed before a response is an entry with
/// status `0` and `_error`. What is written passes through the same redaction as logs
/// (LogRedactor): `Authorization`, cookie values, token-like query items and body fields are
/// masked. Bodies are kept up to `bodyLimit` bytes each, a streamed response up to the same limit.
///
/// The file is valid HAR after every entry: each is written with the archive's closing brackets
/// after it, which the next one overwrites, so a recorder that is never closed (a crash, a
/// killed process) loses only the exchanges still in flight. Until it is closed the file ends
/// in up to 256 KiB of spaces (whitespace after the archive, which JSON allows) that the next
/// entries are written over: overwriting a file's bytes costs the system about half of what
/// extending it by each entry does. ``close()``, or releasing the recorder, cuts them off.
///
/// It asks for exchanges alone and runs inline (NetworkEventMonitor/runsInline): an entry is
/// written on the thread where its exchange ended, before the request goes on, so the file holds
/// it by the time the request's result is delivered; entries are written in the order exchanges
/// end. Measured out of process (Benchmarks/README.md), handing entries to a queue of its own
/// cost more than writing them: two thread wakes a request.
public final class HARRecorder: NetworkEventMonitor {
    /// Where the archive is written.
    public let file: URL
    public var exchangeBodyLimit: Int? { bodyLimit }
    public var runsInline: Bool { true }
    public var events: NetworkMonitorEvents { [] }
    private let bodyLimit: Int
    /// What follows the last entry: the entries' closing bracket and the rest of the log.
    private let closing: [UInt8]
    private let state: Locked<State>

    private struct State {
        var handle: FileHandle?
        /// Where the next entry goes: the end of the last one.
        var entriesEnd: Int
        /// The size of the file: the archive, then spaces.
        var fileEnd: Int
        var count = 0
        var error: (any Error)?
    }

    /// What the file is extended by when an entry does not fit, written as many times as it
    /// takes: made once, so that extending the file costs no filling of memory.
    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64 << 10)

    /// Creates a recorder that writes to `file`, replacing what is there.
    ///
    /// - Parameters:
    ///   - file: the archive to write.
    ///   - bodyLimit: the most bytes of each request and response body kept (64 KiB by default);
    ///     a longer body is cut and its content marked `"truncated"`.
    /// - Throws: ``BaseServerError`` with code `fileAccess` when the file cannot be written.
    public init(file: URL, bodyLimit: Int = 64 << 10) throws {
        self.file = file
        self.bodyLimit = max(bodyLimit, 0)
        // `{"log":{"creator":…,"entries":[],"version":"1.2"}}` (keys sorted): split open at the
        // empty list; what follows it becomes the closing text each entry is written before.
        let empty = try HTTPArchive().encoded()
        guard let range = empty.range(of: Data("\"entries\":[]".utf8)) else {
            throw BaseServerError(code: .fileAccess, message: "could not lay out the HAR header")
        }
        let header = empty[..<(range.upperBound - 1)]
        self.closing = Array("\n]".utf8) + empty[range.upperBound...] + Array("\n".utf8)
        let handle: FileHandle
        do {
            try (header + closing).write(to: file)
            handle = try FileHandle(forWritingTo: file)
        } catch {
            throw BaseServerError(code: .fileAccess, message: "could not write \(file.path)", underlyingError: error)
        }
        self.state = Locked(State(handle: handle, entriesEnd: header.count, fileEnd: header.count + closing.count))
    }

    /// The first error writing the file met, if any; no entry is written after it.
    public var error: (any Error)? { state.withLock { $0.error } }

    /// How many entries the file holds.
    public var count: Int { state.withLock { $0.count } }

    public func request(_ request: MonitoredRequest, didExchange exchange: MonitoredExchange) {
        // `,\n`, the entry and the closing text, written outside the lock: the first entry's
        // text starts at its newline.
        var writer = HARWriter(roomFor: exchange, extra: 2 + closing.count)
        writer.put(",\n")
        writer.entry(exchange, requestId: request.id)
        let entryEnd = writer.count
        writer.put(closing)
        do {
            try append(writer, entryEnd: entryEnd)
        } catch {
            state.withLock { $0.error = $0.error ?? error }
        }
    }

    /// Closes the file, which holds the entries of every exchange that already ended (and no
    /// spaces after them); later entries are dropped. Safe to call more than once, from any thread.
    public func close() {
        state.withLock { close(&$0) }
    }

    /// Writes the closing text after the last entry again (a write that failed may have cut it),
    /// cuts the spaces after it and closes the file.
    private func close(_ state: inout State) {
        guard let handle = state.handle else { return }
        _ = closing.withUnsafeBytes { writeAll($0, to: handle.fileDescriptor, at: state.entriesEnd) }
        try? handle.truncate(atOffset: UInt64(state.entriesEnd + closing.count))
        try? handle.synchronize()
        try? handle.close()
        state.handle = nil
    }

    /// Writes the text of `writer` (an entry before `entryEnd`, then the closing text) after the
    /// last entry: one write, so the file is never left without its brackets. When they do not
    /// fit in the file, it is first extended by spaces.
    private func append(_ writer: borrowing HARWriter, entryEnd: Int) throws {
        try state.withLock { state in
            guard let handle = state.handle, state.error == nil else { return }
            let start = state.count == 0 ? 1 : 0
            let entriesEnd = state.entriesEnd + entryEnd - start
            // At least 192 KiB of spaces kept after the closing text, 64 KiB at a time.
            while state.fileEnd < entriesEnd + closing.count + (192 << 10) {
                try Self.spaces.withUnsafeBytes { try write($0, to: handle, at: state.fileEnd) }
                state.fileEnd += Self.spaces.count
            }
            // An entry is longer than the closing text it writes over: nothing of it is left.
            try writer.withBytes(from: start) { try write($0, to: handle, at: state.entriesEnd) }
            state.entriesEnd = entriesEnd
            state.count += 1
        }
    }

    private func write(_ bytes: UnsafeRawBufferPointer, to handle: FileHandle, at offset: Int) throws {
        let failure = writeAll(bytes, to: handle.fileDescriptor, at: offset)
        guard failure == 0 else {
            throw BaseServerError(
                code: .fileAccess, message: "could not write \(file.path): \(String(cString: strerror(failure)))")
        }
    }

    deinit {
        state.withLock { close(&$0) }
    }
}
