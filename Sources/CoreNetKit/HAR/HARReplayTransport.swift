//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that answers from an HTTP Archive (HAR 1.2), for tests: service code runs against
/// answers captured from the real server (by ``HARRecorder``, a browser or a proxy), with no
/// server running.
///
/// ```swift
/// var configuration = NetworkConfiguration.default
/// configuration.transport = try HARReplayTransport(file: Bundle.module.url(forResource: "users", withExtension: "har")!)
/// ```
///
/// A request is matched by method and URL (scheme, host, port, path and query items, the
/// query's order ignored; a recorded value masked by redaction matches any value) and, for a
/// request with a body, by its body redacted as the recorder redacts it (``matchesBody``).
/// Entries that match the same request answer in recorded order; after the last, the last
/// answers again. An entry a cache answered (`_fromCache`: the kit's, or a browser's) answers only
/// a request no exchange on the network matches. An entry with
/// status `0` replays its failure (`_error`: `timeout`, `connectionLost`, …).
///
/// A request nothing matches fails with ``BaseServerError/Code-swift.struct/transport``, whose
/// message names the closest recorded entries and whose underlying error is a ``HARReplayMiss``;
/// or, in ``Mode/recordWhenMissing(_:)``, goes to a real transport and its exchange is appended
/// to the file.
public final class HARReplayTransport: Transport {
    /// Where answers come from.
    public enum Mode: Sendable {
        /// Only from the file; a request it does not hold fails.
        case replayOnly
        /// From the file; a request it does not hold goes to `transport`, and its exchange is
        /// appended to the file. What else the file holds (a browser's pages, other tools'
        /// fields) is written back with it.
        case recordWhenMissing(any Transport)
        /// Every request goes to `transport`, and the file is written anew with this run's
        /// exchanges (the file's old entries are not read).
        case update(any Transport)

        /// Whether a request the file does not hold goes to a transport.
        var recordsMissing: Bool {
            if case .recordWhenMissing = self { return true }
            return false
        }
    }

    /// The archive read and written.
    public let file: URL
    /// Where answers come from.
    public let mode: Mode
    /// Whether a request with a body matches only an entry with the same body (redacted).
    public let matchesBody: Bool
    private let bodyLimit: Int
    /// Where the recorded entries' dates and timings are read.
    private let clock: any NetworkClock
    private let state: Locked<State>

    private struct State {
        var archive: HTTPArchive
        /// Per entry index: whether it answered already.
        var used: Set<Int> = []
        /// The file as it was read in ``Mode/recordWhenMissing(_:)``, every field of it, and how
        /// many entries it held: what a browser or another tool wrote that ``HTTPArchive`` does
        /// not hold (pages, `_initiator`, …) is written back with the entries appended.
        var original: (file: JSON, entries: Int)?
    }

    /// Creates a transport that answers from `file`.
    ///
    /// - Parameters:
    ///   - file: the archive; in ``Mode/update(_:)`` and ``Mode/recordWhenMissing(_:)`` it need
    ///     not exist yet.
    ///   - mode: ``Mode/replayOnly`` by default.
    ///   - matchesBody: whether bodies must match too (`true` by default).
    ///   - bodyLimit: the most bytes of each body written when recording (1 MiB by default).
    ///   - clock: where a recorded entry's date and timings are read (the system's by default).
    /// - Throws: ``BaseServerError`` with code `fileAccess` or `cantMapping` when the file
    ///   cannot be read as HAR.
    public init(
        file: URL, mode: Mode = .replayOnly, matchesBody: Bool = true, bodyLimit: Int = 1 << 20,
        clock: any NetworkClock = SystemClock()
    ) throws {
        self.file = file
        self.mode = mode
        self.matchesBody = matchesBody
        self.bodyLimit = bodyLimit
        self.clock = clock
        var archive = HTTPArchive()
        var original: (file: JSON, entries: Int)?
        switch mode {
        case .replayOnly: archive = try HTTPArchive(contentsOf: file)
        case .recordWhenMissing:
            if FileManager.default.fileExists(atPath: file.path) {
                archive = try HTTPArchive(contentsOf: file)
                // Read once more as plain JSON, for what HTTPArchive leaves out.
                if let whole = try? JSONDecoder().decode(JSON.self, from: Data(contentsOf: file)) {
                    original = (whole, archive.log.entries.count)
                }
            }
        case .update: break
        }
        self.state = Locked(State(archive: archive, original: original))
        if case .update = mode { try save(archive.encoded()) }
    }

    /// The archive as the transport holds it now, recorded entries included.
    public var archive: HTTPArchive { state.withLock { $0.archive } }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        if case .update(let transport) = mode { return try await record(request, through: transport) }
        var current = request
        // A browser's HAR holds a redirect and where it led as two entries: followed here as a
        // transport follows them, the last answering, from the recording or (when missing and
        // the mode says so) from the network.
        for hop in 0...RedirectPolicy.maximumRedirects {
            switch take(current, peeking: false) {
            case .success(let entry):
                if hop == 0 { request.body.reportSent(request.body.length ?? 0) }
                let location = entry.response.headers.first { HTTPHeaders.matches($0.name, "Location") }?.value
                guard
                    let next = RedirectPolicy.request(
                        after: current, status: entry.response.status,
                        location: location ?? (entry.response.redirectURL.isEmpty ? nil : entry.response.redirectURL)),
                    mode.recordsMissing || (try? take(next, peeking: true).get()) != nil
                else { return try Self.response(replaying: entry, for: current) }
                current = next
            case .failure(let miss):
                guard case .recordWhenMissing(let transport) = mode else {
                    throw BaseServerError(code: .transport, message: miss.description, underlyingError: miss)
                }
                return try await record(current, through: transport)
            }
        }
        throw URLError(.httpTooManyRedirects)
    }

    /// The entry that answers `request`: the first that matches and has not answered yet, else
    /// the last that matches, marked as used unless `peeking`.
    private func take(_ request: TransportRequest, peeking: Bool) -> Result<HTTPArchive.Entry, HARReplayMiss> {
        let key = HARMatch(request, matchesBody: matchesBody)
        return state.withLock { state in
            let matching = state.archive.log.entries.indices.filter { key.matches(state.archive.log.entries[$0]) }
            // What went to the network first; an answer of a cache (the kit's, a browser's
            // `memory` or `disk`) only for a request that never went there.
            let network = matching.filter { state.archive.log.entries[$0].fromCache == nil }
            let candidates = network.isEmpty ? matching : network
            guard let last = candidates.last else {
                return .failure(HARReplayMiss(request: key.description, closest: key.closest(in: state.archive)))
            }
            let index = candidates.first { !state.used.contains($0) } ?? last
            if !peeking { state.used.insert(index) }
            return .success(state.archive.log.entries[index])
        }
    }

    /// Sends `request` through `transport`, appends its exchange to the file and returns the
    /// response with its whole body.
    private func record(_ request: TransportRequest, through transport: any Transport) async throws
        -> TransportResponse
    {
        let startedAt = clock.currentDate
        let stopwatch = clock.stopwatch()
        let response = try await transport.send(request)
        let wait = stopwatch.elapsed()
        var body = Data()
        for try await chunk in response.body { body.append(chunk) }
        let received = ReceivedResponse(
            statusCode: response.statusCode, headers: response.headers, url: response.url, body: body,
            bytes: Int64(body.count), httpVersion: response.httpVersion)
        let record = MonitoredExchange.Record(
            attempt: 1, startedAt: startedAt, request: request, response: received, error: nil, blocked: .zero,
            wait: wait, receive: stopwatch.elapsed() - wait)
        let entry = HTTPArchive.Entry(MonitoredExchange(record, bodyLimit: bodyLimit), requestId: nil)
        let (archive, original) = state.withLock { state in
            state.archive.log.entries.append(entry)
            state.used.insert(state.archive.log.entries.count - 1)
            return (state.archive, state.original)
        }
        try save(Self.encoded(archive, into: original))
        var headers = response.headers
        headers.remove(name: "Content-Encoding")
        return TransportResponse(
            statusCode: response.statusCode, headers: headers, body: body, url: response.url,
            httpVersion: response.httpVersion)
    }

    /// `archive` as a file: the `original` file's JSON with the entries after its own appended
    /// when there is one, so that nothing it held is lost; else the archive alone.
    static func encoded(_ archive: HTTPArchive, into original: (file: JSON, entries: Int)?) throws -> Data {
        guard let original, case .object(var root) = original.file, case .object(var log)? = root["log"],
            case .array(var entries)? = log["entries"]
        else { return try archive.encoded() }
        for entry in archive.log.entries.dropFirst(original.entries) {
            entries.append(try JSONDecoder().decode(JSON.self, from: HTTPArchive.encoder.encode(entry)))
        }
        log["entries"] = .array(entries)
        root["log"] = .object(log)
        return try HTTPArchive.encoder.encode(JSON.object(root))
    }

    private func save(_ encode: @autoclosure () throws -> Data) throws {
        do {
            try encode().write(to: file, options: .atomic)
        } catch {
            throw BaseServerError(code: .fileAccess, message: "could not write \(file.path)", underlyingError: error)
        }
    }

    /// The response `entry` recorded, or the failure it recorded.
    static func response(replaying entry: HTTPArchive.Entry, for request: TransportRequest) throws
        -> TransportResponse
    {
        guard entry.response.status > 0 else { throw failure(entry.error) }
        let content = entry.response.content
        let text = content.text ?? ""
        let body = content.encoding == "base64" ? Data(base64Encoded: text) ?? Data() : Data(text.utf8)
        // The text is the decoded body: its encoding and length on the wire no longer apply, and a
        // field redaction masked is not replayed as if it were real.
        let skipped: Set<String> = ["content-encoding", "content-length", "transfer-encoding"]
        let headers = HTTPHeaders(
            entry.response.headers.filter { !skipped.contains($0.name.lowercased()) && $0.value != LogRedactor.mask }
                .map { (name: $0.name, value: $0.value) })
        return TransportResponse(
            statusCode: entry.response.status, headers: headers, body: body, url: request.url,
            httpVersion: entry.response.httpVersion)
    }

    /// The error a failed attempt recorded as `code` replays as.
    static func failure(_ code: String?) -> URLError {
        switch code {
        case "timeout": URLError(.timedOut)
        case "connectionLost": URLError(.networkConnectionLost)
        case "noInternetConnection": URLError(.notConnectedToInternet)
        default: URLError(.cannotConnectToHost)
        }
    }
}

/// No entry of a ``HARReplayTransport``'s archive matches a request: the underlying error of the
/// `transport` failure the request ends with.
public struct HARReplayMiss: Error, Sendable, CustomStringConvertible {
    /// The request: its method and URL.
    public let request: String
    /// The recorded entries that came closest (method and URL), closest first; at most three.
    public let closest: [String]

    public var description: String {
        let near = closest.isEmpty ? "the archive has no entries" : "closest: " + closest.joined(separator: "; ")
        return "no recorded entry matches \(request) (\(near))"
    }
}
