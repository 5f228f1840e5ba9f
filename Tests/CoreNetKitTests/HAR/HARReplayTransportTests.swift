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

/// HARReplayTransport: answers recorded from the loopback server, replayed with the server
/// stopped; misses, record-when-missing, matching rules.
@Suite(.timeLimit(.minutes(3))) struct HARReplayTransportTests {
    /// What a small service reads: users, a created user, a mapped 404, a retried request and
    /// a counter read twice.
    struct Results: Equatable {
        var users: [User] = []
        var created: User?
        var missing: String?
        var flaky: Int?
        var counters: [Int] = []
    }

    static func runService(_ base: URL, _ configuration: NetworkConfiguration) async throws -> Results {
        var results = Results()
        results.users = try await TestRequest<[User]>(configuration: configuration, keyPath: "items") {
            ServerRequest(
                method: .get, baseUrl: base, relativeUrl: "/users", headers: ["Authorization": "Bearer t-1234"])
        }.performAsync()
        results.created = try await TestRequest<User>(configuration: configuration) {
            ServerRequest(
                method: .post, baseUrl: base, relativeUrl: "/users",
                parameters: .jsonObject(["name": "Grace Hopper", "email": "grace@example.com"]))
        }.performAsync()
        do {
            _ = try await TestRequest<User>(configuration: configuration) {
                ServerRequest(method: .get, baseUrl: base, relativeUrl: "/users/9")
            }.performAsync()
        } catch let error as BaseServerError {
            results.missing = "\(error.code) \(error.statusCode ?? 0)"
        }
        let flaky = try await TestRequest<JSON>(configuration: configuration) {
            ServerRequest(method: .get, baseUrl: base, relativeUrl: "/flaky/replay?failures=1")
        }.performAsync()
        results.flaky = flaky["attempt"]?.intValue
        for _ in 1...2 {
            let counter = try await TestRequest<Counter>(configuration: configuration) {
                ServerRequest(method: .get, baseUrl: base, relativeUrl: "/counter/replay")
            }.performAsync()
            results.counters.append(counter.value)
        }
        return results
    }

    static func replayConfiguration(_ transport: any Transport) -> NetworkConfiguration {
        testConfiguration(transport: transport) {
            $0.retryPolicy = RetryPolicy(baseDelay: .milliseconds(1), jitter: { 0 })
        }
    }

    @Test func aServiceRunsAgainstItsRecordingWithTheServerStoppedWithTheSameResults() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("service.har")
            let server = try await TestServer.start()
            let recorder = try HARRecorder(file: file)
            var recording = Self.replayConfiguration(sharedTestTransport)
            recording.monitors = [recorder]
            let recorded = try await Self.runService(server.baseURL, recording)
            recorder.close()
            await server.stop()

            let replayed = try await Self.runService(
                server.baseURL, Self.replayConfiguration(try HARReplayTransport(file: file)))

            #expect(recorded.users.count > 1)
            #expect(recorded.missing != nil && recorded.flaky == 2 && recorded.counters == [1, 2])
            #expect(replayed == recorded)
        }
    }

    @Test func anUnmatchedRequestFailsNamingTheClosestEntries() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("miss.har")
            let server = try await TestServer.start()
            let recorder = try HARRecorder(file: file)
            var recording = Self.replayConfiguration(sharedTestTransport)
            recording.monitors = [recorder]
            _ = try await Self.runService(server.baseURL, recording)
            recorder.close()
            await server.stop()
            let configuration = Self.replayConfiguration(try HARReplayTransport(file: file))

            let error = await #expect(throws: BaseServerError.self) {
                _ = try await TestRequest<User>(configuration: configuration) {
                    ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: "/users/7")
                }.performAsync()
            }

            #expect(error?.code == .transport)
            let miss = try #require(error?.underlyingError as? HARReplayMiss)
            #expect(miss.request == "GET \(server.baseURL.absoluteString)/users/7")
            #expect(miss.closest.first == "GET \(server.baseURL.absoluteString)/users/9")
            #expect(miss.closest.count == 3)
            #expect(error?.errorDescription?.contains("closest: GET") == true)
        }
    }

    @Test func recordWhenMissingAppendsOnlyWhatWasMissing() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("grow.har")
                let first = try HARReplayTransport(file: file, mode: .recordWhenMissing(sharedTestTransport))
                let configuration = Self.replayConfiguration(first)
                _ = try await TestRequest<User>(configuration: configuration) { server.get("/users/1") }.performAsync()
                #expect(try HTTPArchive(contentsOf: file).log.entries.count == 1)

                let second = try HARReplayTransport(file: file, mode: .recordWhenMissing(sharedTestTransport))
                let again = Self.replayConfiguration(second)
                let one = try await TestRequest<User>(configuration: again) { server.get("/users/1") }.performAsync()
                let two = try await TestRequest<User>(configuration: again) { server.get("/users/2") }.performAsync()

                #expect(one.id == 1 && two.id == 2)
                #expect(server.hits("GET", "/users/1") == 1)
                #expect(server.hits("GET", "/users/2") == 1)
                let urls = try HTTPArchive(contentsOf: file).log.entries.map(\.request.url)
                #expect(urls.map { $0.hasSuffix("/users/1") } == [true, false])
                #expect(urls.count == 2)
            }
        }
    }

    @Test func updateWritesTheFileAnewFromTheServer() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("update.har")
                try HTTPArchive(entries: []).encoded().write(to: file)
                let transport = try HARReplayTransport(file: file, mode: .update(sharedTestTransport))
                let configuration = Self.replayConfiguration(transport)
                for _ in 1...2 {
                    _ = try await TestRequest<Counter>(configuration: configuration) { server.get("/counter/update") }
                        .performAsync()
                }

                #expect(server.hits("GET", "/counter/update") == 2)
                let texts = try HTTPArchive(contentsOf: file).log.entries.map { $0.response.content.text ?? "" }
                #expect(texts.count == 2 && texts[0].contains("\"value\":1") && texts[1].contains("\"value\":2"))
            }
        }
    }

    @Test func queryOrderIsIgnoredAndBodiesMatchUnlessTurnedOff() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("match.har")
                let recording = Self.replayConfiguration(
                    try HARReplayTransport(file: file, mode: .recordWhenMissing(sharedTestTransport)))
                let echo = { @Sendable (query: String, name: String) in
                    ServerRequest(
                        method: .post, baseUrl: server.baseURL, relativeUrl: "/echo?\(query)",
                        parameters: .jsonObject(["name": .string(name)]))
                }
                _ = try await TestRequest<Echo>(configuration: recording) { echo("a=1&b=2", "Ada") }.performAsync()

                let strict = Self.replayConfiguration(try HARReplayTransport(file: file))
                let reordered = try await TestRequest<Echo>(configuration: strict) { echo("b=2&a=1", "Ada") }
                    .performAsync()
                #expect(reordered.rawQuery == "a=1&b=2")
                await #expect(throws: BaseServerError.self) {
                    _ = try await TestRequest<Echo>(configuration: strict) { echo("a=1&b=2", "Grace") }.performAsync()
                }
                let loose = Self.replayConfiguration(try HARReplayTransport(file: file, matchesBody: false))
                let any = try await TestRequest<Echo>(configuration: loose) { echo("a=1&b=2", "Grace") }.performAsync()
                #expect(any.body?.contains("Ada") == true)
                #expect(server.hits("POST", "/echo") == 1)
            }
        }
    }
}

/// A HAR a browser wrote (Chrome's fields, a form given by its `params` alone, as HAR 1.2 allows):
/// replayed, and kept whole when record-when-missing appends to it.
@Suite(.timeLimit(.minutes(3))) struct HARReplayOfBrowserFilesTests {
    static func browserHAR(_ base: URL) -> String {
        let user = #"{\"id\":1,\"name\":\"Ada Lovelace\"}"#
        return """
            {"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},
            "pages":[{"startedDateTime":"2026-11-28T06:00:00.000Z","id":"page_1","title":"Users",
              "pageTimings":{"onContentLoad":120.5,"onLoad":250}}],
            "entries":[
            {"_initiator":{"type":"script"},"_resourceType":"fetch","cache":{},"connection":"8443","pageref":"page_1",
             "request":{"method":"GET","url":"\(base.absoluteString)/users/1","httpVersion":"http/2.0",
               "headers":[{"name":"accept","value":"application/json"}],"queryString":[],"cookies":[],
               "headersSize":-1,"bodySize":0},
             "response":{"status":200,"statusText":"","httpVersion":"http/2.0",
               "headers":[{"name":"content-type","value":"application/json"}],
               "cookies":[{"name":"s","value":"x","expires":null,"httpOnly":true,"secure":true,"sameSite":"Lax"}],
               "content":{"size":30,"mimeType":"application/json","compression":0,"text":"\(user)"},
               "redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":300,"_error":null},
             "serverIPAddress":"127.0.0.1","startedDateTime":"2026-11-28T06:00:00.100Z","time":12.3,
             "timings":{"blocked":1.2,"dns":-1,"ssl":-1,"connect":-1,"send":0.1,"wait":10.5,"receive":0.5,
               "_blocked_queueing":0.8}},
            {"cache":{},"pageref":"page_1",
             "request":{"method":"POST","url":"\(base.absoluteString)/login","httpVersion":"http/2.0",
               "headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":31,
               "postData":{"mimeType":"application/x-www-form-urlencoded",
                 "params":[{"name":"user","value":"Ada Lovelace"},{"name":"remember","value":"yes"}]}},
             "response":{"status":200,"statusText":"OK","httpVersion":"http/2.0",
               "headers":[{"name":"content-type","value":"application/json"}],"cookies":[],
               "content":{"size":11,"mimeType":"application/json","text":"{\\"ok\\":true}"},
               "redirectURL":"","headersSize":-1,"bodySize":-1},
             "startedDateTime":"2026-11-28T06:00:01.000Z","time":5,
             "timings":{"blocked":-1,"dns":-1,"connect":-1,"send":0,"wait":4,"receive":1,"ssl":-1}}
            ]}}
            """
    }

    /// `POST /login` with `parameters`.
    static func login(
        _ base: URL, _ configuration: NetworkConfiguration,
        _ parameters: ServerRequestParameter = .formURLEncoded(["remember": "yes", "user": "Ada Lovelace"])
    ) async throws -> JSON {
        try await TestRequest<JSON>(configuration: configuration) {
            ServerRequest(method: .post, baseUrl: base, relativeUrl: "/login", parameters: parameters)
        }.performAsync()
    }

    /// A replay of ``browserHAR(_:)`` changed by `edit`, written in `directory`.
    static func replaying(
        in directory: URL, base: URL, _ edit: (inout HTTPArchive) -> Void
    ) throws -> NetworkConfiguration {
        let file = directory.appendingPathComponent("browser.har")
        try Data(Self.browserHAR(base).utf8).write(to: file)
        var archive = try HTTPArchive(contentsOf: file)
        edit(&archive)
        try archive.encoded().write(to: file)
        return HARReplayTransportTests.replayConfiguration(try HARReplayTransport(file: file))
    }

    @Test func aBrowsersFileReplaysItsFormsByTheirFields() async throws {
        try await withTemporaryDirectory { directory in
            let base = URL(string: "http://127.0.0.1:9")!
            let file = directory.appendingPathComponent("browser.har")
            try Data(Self.browserHAR(base).utf8).write(to: file)
            let configuration = HARReplayTransportTests.replayConfiguration(try HARReplayTransport(file: file))

            let user = try await TestRequest<JSON>(configuration: configuration) {
                ServerRequest(method: .get, baseUrl: base, relativeUrl: "/users/1")
            }.performAsync()
            let login = try await Self.login(base, configuration)

            #expect(user["name"]?.stringValue == "Ada Lovelace")
            #expect(login["ok"] == .bool(true))
            let form = try HTTPArchive(contentsOf: file).log.entries[1].request.postData
            #expect(form?.text == "user=Ada%20Lovelace&remember=yes")
            await #expect(throws: BaseServerError.self) {
                _ = try await Self.login(base, configuration, .formURLEncoded(["user": "Grace", "remember": "yes"]))
            }
        }
    }

    @Test func aRedirectRecordedAsTwoEntriesIsFollowedToTheSecond() async throws {
        try await withTemporaryDirectory { directory in
            let base = URL(string: "http://127.0.0.1:9")!
            let configuration = try Self.replaying(in: directory, base: base) { archive in
                var moved = archive.log.entries[0]
                moved.request.url = base.absoluteString + "/old-users/1"
                moved.response.status = 302
                moved.response.content = HTTPArchive.Content(size: 0, mimeType: "text/html")
                moved.response.headers = [HTTPArchive.Field(name: "location", value: "/users/1")]
                moved.response.redirectURL = "/users/1"
                archive.log.entries.insert(moved, at: 0)
            }
            let transport = try #require(configuration.transport as? HARReplayTransport)

            let user = try await TestRequest<JSON>(configuration: configuration) {
                ServerRequest(method: .get, baseUrl: base, relativeUrl: "/old-users/1")
            }.performAsync()
            let response = try await transport.send(
                TransportRequest(method: .get, url: base.appendingPathComponent("old-users/1")))

            #expect(user["name"]?.stringValue == "Ada Lovelace")
            #expect(response.statusCode == 200)
            #expect(response.url?.absoluteString == base.absoluteString + "/users/1")
        }
    }

    @Test func aCacheAnswerReplaysOnlyWhatNeverWentOutAndAURLWithACredentialMatches() async throws {
        try await withTemporaryDirectory { directory in
            let base = URL(string: "http://127.0.0.1:9")!
            let configuration = try Self.replaying(in: directory, base: base) { archive in
                var cached = archive.log.entries[0]
                cached.fromCache = "memory"
                cached.response.content.text = #"{"id":1,"name":"from the cache"}"#
                archive.log.entries.append(cached)
                cached.request.url = base.absoluteString + "/users/3"
                cached.response.content.text = #"{"id":3,"name":"Grace Hopper"}"#
                archive.log.entries.append(cached)
                // As a browser writes it: the credential in the query as it was sent.
                cached.fromCache = nil
                cached.request.url = base.absoluteString + "/users/3?access_token=abc"
                cached.response.content.text = #"{"id":3,"name":"Grace Hopper, signed in"}"#
                archive.log.entries.append(cached)
            }

            var names: [String?] = []
            for path in ["/users/1", "/users/1", "/users/3", "/users/3?access_token=abc"] {
                let user = try await TestRequest<JSON>(configuration: configuration) {
                    ServerRequest(method: .get, baseUrl: base, relativeUrl: path)
                }.performAsync()
                names.append(user["name"]?.stringValue)
            }

            #expect(names == ["Ada Lovelace", "Ada Lovelace", "Grace Hopper", "Grace Hopper, signed in"])
        }
    }

    @Test func aBodyWithTheSecretsABrowserWroteMatchesTheSameRequest() async throws {
        try await withTemporaryDirectory { directory in
            let base = URL(string: "http://127.0.0.1:9")!
            let configuration = try Self.replaying(in: directory, base: base) { archive in
                archive.log.entries[1].request.postData = HTTPArchive.PostData(
                    mimeType: "application/json", text: #"{"password":"hunter2","user":"Ada"}"#)
            }

            let login = try await Self.login(base, configuration, .jsonObject(["user": "Ada", "password": "hunter2"]))

            #expect(login["ok"] == .bool(true))
            await #expect(throws: BaseServerError.self) {
                _ = try await Self.login(base, configuration, .jsonObject(["user": "Grace", "password": "hunter2"]))
            }
        }
    }

    @Test func recordWhenMissingKeepsWhatABrowsersFileHoldsBesideTheEntries() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let file = directory.appendingPathComponent("browser.har")
                try Data(Self.browserHAR(server.baseURL).utf8).write(to: file)
                let transport = try HARReplayTransport(file: file, mode: .recordWhenMissing(sharedTestTransport))
                let configuration = HARReplayTransportTests.replayConfiguration(transport)

                _ = try await TestRequest<JSON>(configuration: configuration) { server.get("/users/1") }.performAsync()
                let two = try await TestRequest<JSON>(configuration: configuration) { server.get("/users/2") }
                    .performAsync()

                #expect(two["id"]?.intValue == 2)
                #expect(server.hits("GET", "/users/1") == 0)
                let written = try JSONDecoder().decode(JSON.self, from: Data(contentsOf: file))
                let log = try #require(written["log"])
                #expect(log["pages"]?[0]?["title"]?.stringValue == "Users")
                #expect(log["creator"]?["name"]?.stringValue == "WebInspector")
                #expect(log["entries"]?[0]?["_initiator"]?["type"]?.stringValue == "script")
                #expect(log["entries"]?[0]?["serverIPAddress"]?.stringValue == "127.0.0.1")
                #expect(log["entries"]?[0]?["timings"]?["_blocked_queueing"] == .double(0.8))
                #expect(log["entries"]?[1]?["request"]?["postData"]?["text"] == nil)
                let urls = try HTTPArchive(contentsOf: file).log.entries.map(\.request.url)
                #expect(urls == ["/users/1", "/login", "/users/2"].map { server.baseURL.absoluteString + $0 })
            }
        }
    }
}
