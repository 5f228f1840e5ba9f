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

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HARRecorder against the loopback server: a run with every kind of exchange, checked by the
/// HAR 1.2 schema and an independent reader, its timings, and what it must not contain.
@Suite(.timeLimit(.minutes(3))) struct HARRecorderTests {
    /// Values that must never reach the file.
    static let secrets = [
        "bearer-secret-1234", "cookie-secret-4567", "query-secret-7890", "body-secret-0123",
        "set-cookie-secret-3456", "multipart-secret-2468", "form-secret-1357",
    ]

    @Test func aRunOfEveryKindOfExchangeIsRecordedAsWhatItIsWithoutSecrets() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("run.har")
                let watcher = ExchangeWatcher()
                try await Self.recordEveryKind(server, into: file, cache: directory, also: watcher)

                let text = try String(contentsOf: file, encoding: .utf8)
                let archive = try HTTPArchive(contentsOf: file)
                let entries = archive.log.entries
                let statuses = entries.map(\.response.status)
                #expect(statuses.contains(304))
                #expect(statuses.filter { $0 == 503 }.count == 1)
                #expect(entries.contains { $0.fromCache == "disk" && $0.response.status == 200 })
                #expect(
                    entries.contains {
                        $0.request.url.contains("/redirect") && $0.response.redirectURL.contains("/users/2")
                    })
                let multipart = try #require(
                    entries.first { $0.request.postData?.mimeType.hasPrefix("multipart/form-data") == true })
                #expect(
                    multipart.request.postData?.params == [
                        HTTPArchive.Param(name: "note", value: "a note"),
                        HTTPArchive.Param(name: "client_secret", value: LogRedactor.mask),
                        HTTPArchive.Param(
                            name: "file", value: nil, fileName: "a.bin", contentType: "application/octet-stream"),
                    ])
                let form = try #require(
                    entries.first {
                        $0.request.postData?.mimeType.hasPrefix("application/x-www-form-urlencoded") == true
                    })
                #expect(
                    form.request.postData?.params?.sorted { $0.name < $1.name } == [
                        HTTPArchive.Param(name: "password", value: LogRedactor.mask),
                        HTTPArchive.Param(name: "user", value: "ada lovelace"),
                    ])
                let streamed = try #require(entries.first { $0.request.url.contains("/events/jsonl") })
                #expect(streamed.response.content.comment == "truncated")
                #expect(streamed.response.content.text?.utf8.count == 512)
                #expect(streamed.response.content.size > 512)
                let retried = entries.filter { $0.request.url.contains("/flaky/har") }
                #expect(retried.map(\.attempt) == [1, 2])
                for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) is in the file") }
                #expect(text.contains(LogRedactor.mask))
            }
        }
    }

    /// The writer against `HTTPArchive.Entry` on each exchange of a real run, as the recorder
    /// is given it (each monitor is given an exchange of its own, whose redacted JSON bodies may
    /// list their members in another order).
    @Test func whatTheRecorderWritesForEachExchangeIsWhatHTTPArchiveEntryBuildsFromIt() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("same.har")
                let collector = ExchangeCollector()
                try await Self.recordEveryKind(server, into: file, cache: directory, also: collector)

                let pairs = collector.collected()
                #expect(pairs.count == (try HTTPArchive(contentsOf: file).log.entries.count))
                #expect(pairs.count >= 10)
                for (written, built) in pairs {
                    let decoded = try JSONDecoder().decode(HTTPArchive.Entry.self, from: Data(written))
                    #expect(decoded == built, "\(built.request.method) \(built.request.url)")
                }
            }
        }
    }

    /// Needs python3 with `jsonschema` and `haralyzer` (PyPI), which `.ci/run` installs: there
    /// it always runs; elsewhere it runs when they are installed.
    @Test(.enabled(if: externalHARToolsRun)) func theHAR12SchemaAndHaralyzerAcceptTheFile() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("checked.har")
                try await Self.recordEveryKind(server, into: file, cache: directory)

                let check = try runCheckHAR(file)
                #expect(check.status == 0, "\(check.output)")
                let entries = try HTTPArchive(contentsOf: file).log.entries
                #expect(check.output.split(separator: "\n").count == entries.count)
            }
        }
    }

    @Test func timingsAddUpToEachEntrysTimeAndMatchTheMonitorsDurations() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("timed.har")
                let watcher = ExchangeWatcher()
                try await Self.recordEveryKind(server, into: file, cache: directory, also: watcher)

                let entries = try HTTPArchive(contentsOf: file).log.entries
                let durations = watcher.durations()
                #expect(entries.count >= 10)
                for entry in entries {
                    let timings = entry.timings
                    let sum =
                        [timings.blocked ?? -1, timings.dns ?? -1, timings.connect ?? -1, timings.ssl ?? -1]
                        .filter { $0 >= 0 }.reduce(0, +) + timings.send + timings.wait + timings.receive
                    #expect(abs(sum - entry.time) < 1, "\(entry.request.url): \(sum) ms ≠ \(entry.time) ms")
                    guard entry.fromCache == nil, let id = entry.requestId, let attempt = entry.attempt else {
                        continue
                    }
                    let monitored = try #require(
                        durations["\(id)#\(attempt)"], "no didReceive for \(entry.request.url)")
                    let milliseconds = HTTPArchive.Entry.milliseconds(monitored)
                    #expect(abs(timings.wait + timings.receive - milliseconds) < 1, "\(entry.request.url)")
                }
            }
        }
    }

    @Test func theFileIsValidHARAndHoldsEachEntryWhenItsRequestReturnsWithoutClose() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("open.har")
                let recorder = try HARRecorder(file: file)
                let configuration = testConfiguration { $0.monitors = [recorder] }
                #expect(try HTTPArchive(contentsOf: file).log.entries.isEmpty)

                for index in 1...3 {
                    _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/\(index)") }
                        .performAsync()
                    // No wait: the recorder runs inline, so the entry is written before the request returns.
                    #expect(try HTTPArchive(contentsOf: file).log.entries.count == index)
                }
                _ = recorder  // never closed
            }
        }
    }

    @Test func anOpenFileEndsInSpacesThatTheNextEntriesAndCloseTakeAway() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("padded.har")
                let recorder = try HARRecorder(file: file)
                let configuration = testConfiguration { $0.monitors = [recorder] }
                for index in 1...2 {
                    _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/\(index)") }
                        .performAsync()
                }

                let open = try Data(contentsOf: file)
                let archive = try #require(open.lastIndex(of: UInt8(ascii: "}")))
                #expect(open.count - archive > 1 << 10)
                #expect(open[(archive + 1)...].allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
                #expect(try HTTPArchive(contentsOf: file).log.entries.count == 2)
                if externalHARToolsRun {
                    let check = try runCheckHAR(file)
                    #expect(check.status == 0, "\(check.output)")
                }

                recorder.close()
                let closed = try Data(contentsOf: file)
                #expect(closed == open[...archive] + Data("\n".utf8))
                #expect(try HTTPArchive(contentsOf: file).log.entries.count == 2)
            }
        }
    }

    @Test func entriesLargerThanThePaddingAreWrittenWholeBetweenSmallOnes() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("large.har")
                // Bodies of 3.2 MB, base64 in the file (4.3 MB, far past the 256 KiB of spaces kept
                // after the archive), between small entries.
                let recorder = try HARRecorder(file: file, bodyLimit: 4 << 20)
                let configuration = testConfiguration { $0.monitors = [recorder] }
                var bodies: [Data] = []
                for index in 1...3 {
                    bodies.append(
                        try await TestRequest<Data>(configuration: configuration) { server.get("/download/3200000") }
                            .performAsync())
                    _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/\(index)") }
                        .performAsync()
                    #expect(try HTTPArchive(contentsOf: file).log.entries.count == 2 * index)
                }
                func check() throws {
                    let entries = try HTTPArchive(contentsOf: file).log.entries
                    #expect(entries.count == 6)
                    for (index, body) in bodies.enumerated() {
                        let content = entries[2 * index].response.content
                        #expect(content.encoding == "base64")
                        #expect(Data(base64Encoded: content.text ?? "") == body)
                        #expect(entries[2 * index + 1].request.url.hasSuffix("/users/\(index + 1)"))
                    }
                }
                try check()
                recorder.close()
                try check()
                #expect(try Data(contentsOf: file).last == UInt8(ascii: "\n"))
            }
        }
    }

    @Test func aFileCutShortByAnotherWriterIsStillWrittenToWithoutAnError() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("cut.har")
                let recorder = try HARRecorder(file: file)
                let configuration = testConfiguration { $0.monitors = [recorder] }
                _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()
                // Another recorder on the same path starts over: the padded end of the file is gone.
                let other = try FileHandle(forWritingTo: file)
                try other.truncate(atOffset: 0)
                try other.close()

                _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/2") }.performAsync()
                #expect(recorder.count == 2)
                #expect(recorder.error == nil)
                recorder.close()
                let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
                #expect(text.contains("/users/2"))
            }
        }
    }

    @Test func aFailedAttemptIsAnEntryWithStatusZeroAndItsError() async throws {
        try await withTemporaryDirectory { directory in
            try await withRefusingPort { port in
                let file = directory.appendingPathComponent("failed.har")
                let recorder = try HARRecorder(file: file)
                let configuration = testConfiguration {
                    $0.monitors = [recorder]
                    $0.retryPolicy = nil
                }

                await #expect(throws: BaseServerError.self) {
                    _ = try await TestRequest<User>(configuration: configuration) {
                        ServerRequest(
                            method: .get, baseUrl: URL(string: "http://127.0.0.1:\(port)")!, relativeUrl: "/users/1")
                    }.performAsync()
                }
                recorder.close()

                let entry = try #require(try HTTPArchive(contentsOf: file).log.entries.first)
                #expect(entry.response.status == 0)
                #expect(entry.error == "cannotConnect")
            }
        }
    }

    @Test func aBackgroundRevalidationIsAnEntryAfterTheRequestEndedMarkedAsSuch() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("swr.har")
                let recorder = try HARRecorder(file: file)
                let clock = wallClock()
                let adapter = SaveSignalingAdapter(
                    DiskCacheAdapter(directory: directory.appendingPathComponent("cache")))
                var configuration = freshnessConfiguration(adapter, clock: clock)
                configuration.monitors = [recorder]
                let request = server.request(
                    "/cache/fresh/har-swr?cc=max-age%3D10,stale-while-revalidate%3D100&etag=1", .cacheIfFreshElseServer)
                _ = try await request.perform(Counter.self, configuration).log.success()
                clock.advance(by: .seconds(20))
                server.bumpFreshVersion("har-swr")  // the revalidation gets a new answer, not a 304

                let stale = try await request.perform(Counter.self, configuration).log.success()
                try await adapter.waitForSavedCounter(2)  // the revalidation's exchange was handed over before
                recorder.close()

                let entries = try HTTPArchive(contentsOf: file).log.entries
                #expect(stale.value == 1)
                #expect(entries.map(\.fromCache) == [nil, "disk", nil])
                #expect(entries.map(\.response.status) == [200, 200, 200])
                #expect(entries.map { $0.comment != nil } == [false, false, true])
                #expect(entries[2].requestId == entries[1].requestId)
                #expect(entries[2].request.headers.contains { $0.name == "If-None-Match" })
            }
        }
    }

    @Test func theFirstAnswerOfFirstCacheThenRefreshIsAnEntryFromTheCacheBeforeTheServers() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("first.har")
                let recorder = try HARRecorder(file: file)
                let configuration = testConfiguration {
                    $0.monitors = [recorder]
                    $0.cacheAdapter = DiskCacheAdapter(directory: directory.appendingPathComponent("cache"))
                }
                let versioned = server.request("/cache/etag/first", .firstCacheThenRefreshFromServer)
                _ = try await versioned.perform(JSON.self, configuration).log.success()
                let (_, log) = versioned.perform(JSON.self, configuration)
                _ = try await log.cached()
                _ = try await log.success()
                recorder.close()

                let entries = try HTTPArchive(contentsOf: file).log.entries
                #expect(entries.map(\.fromCache) == [nil, "disk", nil])
                #expect(entries.map(\.response.status) == [200, 200, 304])
                #expect(entries[1].requestId == entries[2].requestId)
            }
        }
    }

    #if AsyncHTTPClient
    /// An entry gives the version the response came in: HTTP/2 where ALPN chose it, HTTP/1.1
    /// where the client offered only that.
    @Test(arguments: [false, true]) func anEntryGivesTheHTTPVersionTheResponseCameIn(http1Only: Bool) async throws {
        try await withTemporaryDirectory { directory in
            try await withTLSTestServer(testPKI.valid) { server in
                let file = directory.appendingPathComponent("version.har")
                let recorder = try HARRecorder(file: file)
                let transport = try trustTransport(try trustingTestAuthority(), http1Only: http1Only)
                _ = try await fetchJSON("/users/1", on: server, through: transport) { $0.monitors = [recorder] }.get()
                recorder.close()

                let entry = try #require(try HTTPArchive(contentsOf: file).log.entries.first)
                #expect(entry.response.httpVersion == (http1Only ? "HTTP/1.1" : "HTTP/2.0"))
                #expect(entry.request.httpVersion == entry.response.httpVersion)
            }
        }
    }
    #endif

    /// Runs ``runEveryKind(_:_:)`` with a HARRecorder writing `file` (bodies cut at 512 bytes),
    /// and `also` beside it, a cache in `cache`; closes the recorder.
    static func recordEveryKind(
        _ server: TestServer, into file: URL, cache: URL, also monitor: (any NetworkEventMonitor)? = nil
    ) async throws {
        let recorder = try HARRecorder(file: file, bodyLimit: 512)
        let configuration = testConfiguration {
            $0.monitors = [recorder] + (monitor.map { [$0] } ?? [])
            $0.cacheAdapter = DiskCacheAdapter(directory: cache.appendingPathComponent("cache"))
            $0.retryPolicy = RetryPolicy(baseDelay: .milliseconds(1), jitter: { 0 })
        }
        try await runEveryKind(server, configuration)
        recorder.close()
    }

    /// GET, POST JSON, multipart, a redirect, a retry, a cache answer, a 304, a streamed
    /// response and a cookie set, each with secrets `secrets` lists.
    static func runEveryKind(_ server: TestServer, _ configuration: NetworkConfiguration) async throws {
        let headers = ["Authorization": "Bearer bearer-secret-1234", "Cookie": "session=cookie-secret-4567"]
        _ = try await TestRequest<User>(configuration: configuration) {
            server.get("/users/1?api_key=query-secret-7890&page=1", headers: headers)
        }.performAsync()
        _ = try await TestRequest<JSON>(configuration: configuration) {
            ServerRequest(
                method: .post, baseUrl: server.baseURL, relativeUrl: "/echo",
                parameters: .jsonObject(["name": "Ada", "password": "body-secret-0123"]))
        }.performAsync()
        var form = MultipartData()
        form.append("a note", name: "note")
        form.append("multipart-secret-2468", name: "client_secret")
        form.append(Data([0, 1, 2, 250, 251]), name: "file", filename: "a.bin", mimeType: "application/octet-stream")
        _ = try await TestRequest<JSON>(configuration: configuration) { [form] in server.post("/upload", form) }
            .performAsync()
        _ = try await TestRequest<JSON>(configuration: configuration) {
            ServerRequest(
                method: .post, baseUrl: server.baseURL, relativeUrl: "/echo",
                parameters: .formURLEncoded(["user": "ada lovelace", "password": "form-secret-1357"]))
        }.performAsync()
        _ = try await TestRequest<User>(configuration: configuration) { server.get("/redirect?to=/users/2") }
            .performAsync()
        _ = try await TestRequest<JSON>(configuration: configuration) { server.get("/flaky/har?failures=1") }
            .performAsync()
        let fresh = server.request("/cache/fresh/har?cc=max-age%3D600", .cacheIfFreshElseServer)
        for _ in 1...2 { _ = try await TestRequest<JSON>(configuration: configuration) { fresh }.performAsync() }
        let versioned = server.request("/cache/etag/har", .firstCacheThenRefreshFromServer)
        for _ in 1...2 { _ = try await TestRequest<JSON>(configuration: configuration) { versioned }.performAsync() }
        let setCookie = "session=set-cookie-secret-3456; Path=/; HttpOnly"
        _ = try await TestRequest<JSON>(configuration: configuration) {
            server.get("/cookies/set", parameters: .query(["cookie": .string(setCookie)]))
        }.performAsync()
        var lines = 0
        for try await _ in ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: "/events/jsonl?count=200")
            .stream(configuration: configuration).lines
        {
            lines += 1
        }
        #expect(lines >= 200)
    }
}

/// For every exchange as the recorder is given it (inline, bodies cut where the recorder cuts
/// them), what the recorder's writer writes and the entry `HTTPArchive.Entry` builds.
final class ExchangeCollector: NetworkEventMonitor {
    var runsInline: Bool { true }
    var events: NetworkMonitorEvents { [] }
    var exchangeBodyLimit: Int? { 512 }
    private let pairs = Locked<[(written: [UInt8], built: HTTPArchive.Entry)]>([])

    func request(_ request: MonitoredRequest, didExchange exchange: MonitoredExchange) {
        let written = HARWriter.encode(exchange, requestId: request.id)
        let built = HTTPArchive.Entry(exchange, requestId: request.id)
        pairs.withLock { $0.append((written, built)) }
    }

    func collected() -> [(written: [UInt8], built: HTTPArchive.Entry)] { pairs.withLock { $0 } }
}

/// The durations monitors are told for each attempt, by "requestId#attempt".
final class ExchangeWatcher: NetworkEventMonitor {
    let queue = DispatchQueue(label: "tests.exchange-watcher")
    private let received = Locked<[String: Duration]>([:])

    func request(_ request: MonitoredRequest, didReceive response: MonitoredResponse) {
        received.withLock { $0["\(request.id)#\(response.attempt)"] = response.duration }
    }

    func durations() -> [String: Duration] {
        queue.sync {}
        return received.withLock { $0 }
    }
}

/// Whether the checks by tools from outside run: always in CI (`CI=true`, where `.ci/run`
/// installs them), elsewhere when python3 imports both.
let externalHARToolsRun: Bool = {
    if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import jsonschema, haralyzer"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}()

/// Runs Tests/CoreNetKitTests/HAR/check_har.py on `file`: the HAR 1.2 schema and haralyzer.
func runCheckHAR(_ file: URL) throws -> (status: Int32, output: String) {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("check_har.py")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path, file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// The recorder's hand-written JSON against `Codable`: what it writes for an exchange decodes to
/// the entry `HTTPArchive.Entry` builds from it.
@Suite struct HARWriterTests {
    @Test func aWrittenEntryDecodesToTheSameEntry() throws {
        let exchange = MonitoredExchange(
            cachedAnswer: ServerResponse(
                statusCode: 200,
                headers: ["Content-Type": "text/plain", "Set-Cookie": "a=b; Path=/; Secure; HttpOnly"],
                data: Data("line \"one\"\n\ttab \\ back\u{1} é ✓".utf8),
                transportRequest: TransportRequest(
                    method: .post, url: URL(string: "https://example.com/p?q=1&token=x")!,
                    headers: ["Cookie": "s=1", "Content-Type": "application/json"],
                    body: .data(Data(#"{"a":[1,2.5,null,true],"password":"p"}"#.utf8)))),
            at: Date(timeIntervalSince1970: 1_790_000_000.123), bodyLimit: 1 << 20)
        let entry = HTTPArchive.Entry(exchange, requestId: "r-1")

        let decoded = try JSONDecoder().decode(
            HTTPArchive.Entry.self, from: Data(HARWriter.encode(exchange, requestId: "r-1")))

        #expect(decoded == entry)
        #expect(entry.response.cookies.first?.secure == true && entry.response.cookies.first?.httpOnly == true)
        #expect(entry.request.postData?.text.contains("\"password\":\"<redacted>\"") == true)
    }
}

/// The writer's JSON strings and numbers, eight bytes at a time, against what `JSONSerialization`
/// reads back: every escape at every place in a word, and at the ends.
@Suite struct HARWriterEscapingTests {
    @Test(arguments: ["\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1F}", "é", "✓", "¢", "\u{71C}"])
    func aStringReadsBackWithTheCharacterAtEveryPlace(_ special: String) throws {
        // Up to 80 bytes: a short text's escapes are counted, a longer one's room is the most
        // they can need, and only a text with room for a whole word of escapes goes eight at a time.
        for length in 0...80 {
            for place in 0...length {
                let text =
                    String(repeating: "a", count: place) + special + String(repeating: "b", count: length - place)
                #expect(try Self.roundTrip(text) == text, "\(length) \(place)")
            }
        }
        let dense = String(repeating: special + "x", count: 40) + String(repeating: special, count: 17)
        #expect(try Self.roundTrip(dense) == dense)
        for length in [10, 30, 60, 70] {
            let packed = String(repeating: special, count: length)
            #expect(try Self.roundTrip(packed) == packed, "\(length)")
        }
    }

    @Test func timesAndSizesReadBackAsTheSameNumbers() throws {
        let microseconds = [0, 1, 7, 16, 200, 1115, 36_383, 1_234_500, 99_999_999, 259_200_000_000]
        for (index, value) in microseconds.enumerated() {
            let record = MonitoredExchange.Record(
                attempt: index + 1, startedAt: Date(timeIntervalSince1970: 1_790_000_000), request: try Self.request(),
                response: ReceivedResponse(
                    statusCode: 200 + index, headers: [:], url: nil, body: Data(count: value % 4096),
                    bytes: Int64(value % 4096)),
                error: nil, blocked: .microseconds(value), wait: .microseconds(value / 3),
                receive: .microseconds(value / 7))
            let exchange = MonitoredExchange(record, bodyLimit: 1 << 20)
            let decoded = try JSONDecoder().decode(
                HTTPArchive.Entry.self, from: Data(HARWriter.encode(exchange, requestId: nil)))
            #expect(decoded == HTTPArchive.Entry(exchange, requestId: nil))
            #expect(decoded.timings.blocked == Double(value) / 1000)
            #expect(decoded.time == Double(value + value / 3 + value / 7) / 1000)
        }
    }

    private static func roundTrip(_ text: String) throws -> String? {
        let written = HARWriter.encode(try exchange(text: text), requestId: nil)
        let object = try JSONSerialization.jsonObject(with: Data(written)) as? [String: Any]
        let response = object?["response"] as? [String: Any]
        return (response?["content"] as? [String: Any])?["text"] as? String
    }

    private static func request() throws -> TransportRequest {
        TransportRequest(method: .get, url: try #require(URL(string: "https://example.com/a?b=1+2&c&d=%C3%A9")))
    }

    private static func exchange(text: String) throws -> MonitoredExchange {
        MonitoredExchange(
            cachedAnswer: ServerResponse(
                statusCode: 200, headers: ["Content-Type": "text/plain"], data: Data(text.utf8),
                transportRequest: TransportRequest(method: .get, url: try #require(URL(string: "https://example.com/")))
            ),
            at: Date(timeIntervalSince1970: 1_790_000_000), bodyLimit: 1 << 20)
    }
}

/// The fields of a form as monitors and HAR files see them.
@Suite struct MonitoredParametersTests {
    @Test func aJSONPartOfAMultipartBodyHasItsSecretFieldsMaskedAsInLogs() throws {
        let body =
            "--b\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n"
            + #"{"password":"pw-secret-99","a":1}"# + "\r\n--b--\r\n"
        let parameters = MonitoredExchange.Body(
            .data(Data(body.utf8)), headers: ["Content-Type": "multipart/form-data; boundary=b"], secrets: [],
            limit: 1000)?.parameters
        let value = try #require(parameters?.first?.value)
        #expect(parameters?.first?.name == "meta")
        #expect(!value.contains("pw-secret-99"))
        #expect(value.contains(LogRedactor.mask))
    }

    @Test func aFieldLongerThanTheBodyLimitIsCutAtAWholeCharacterAndASecretIsMasked() {
        let form = "note=" + String(repeating: "é", count: 100) + "&password=hunter2hunter2"
        let body = MonitoredExchange.Body(
            .data(Data(form.utf8)), headers: ["Content-Type": "application/x-www-form-urlencoded"], secrets: [],
            limit: 11)
        #expect(
            body?.parameters == [
                MonitoredExchange.Parameter(name: "note", value: "ééééé", fileName: nil, contentType: nil),
                MonitoredExchange.Parameter(name: "password", value: LogRedactor.mask, fileName: nil, contentType: nil),
            ])
    }
}
