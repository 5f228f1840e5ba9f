//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// The code README.md shows for the API a newcomer touches first, compiled and run against the
// public API only (no @testable import). When a snippet here changes, change the README too:
// each block below names the README section it is copied from.

import CoreNetKit
import Dispatch
import Foundation
import Testing

/// The README's types, nested so they cannot clash with the test module's own.
private enum Readme {
    enum API {
        static let base = URL(string: "https://api.example.com/v1")!
    }

    struct Order: Codable, Sendable, Equatable {
        let id: Int
    }

    struct Post: Decodable, Sendable {
        let id: Int
    }

    final class CreateOrderRequest: BaseServerRequest<Order>, @unchecked Sendable {
        override func createAsyncServerRequest() -> ServerRequest {
            // README "Describing a request": every label of the initializer, in order.
            ServerRequest(
                method: .post,  // .get, .head, .post, .put, .patch, .delete, .options
                baseUrl: API.base,  // https://api.example.com/v1
                relativeUrl: "/orders",  // appended to baseUrl; may carry a query
                headers: ["Idempotency-Key": "order-7"],  // win over the preparators' headers
                parameters: .jsonObject(["item": 7, "note": "leave at the door"]),  // see below
                timeout: 30,  // seconds; nil = the configuration's (60)
                cachePolicy: .serverOnly,  // see Caching
                requestId: "create-order-7",  // TaskPool id; nil = generated
                requiresAuthorization: true,  // false for login, refresh and public endpoints
                downloadDestination: nil,  // a file URL: stream the body there
                retryPolicy: nil,  // nil = the configuration's; .never = no retry
                keepsPartialDownload: false,  // true: a failed download can be resumed
                resumeData: nil  // DownloadResumeData of a failed download: go on from it
            )
        }
    }

    // README "Pagination": a cursor the API sends as a number.
    struct FeedPage: Decodable, Sendable, CursorPageResponse {
        let items: [Post]
        let nextCursor: String?  // {"items": [...], "next": 41} or {"items": [...], "next": null}

        private enum CodingKeys: String, CodingKey { case items, next }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            items = try container.decode([Post].self, forKey: .items)
            nextCursor = try container.decodeIfPresent(Int.self, forKey: .next).map(String.init)
        }
    }

    final class FeedRequest: BaseServerRequest<FeedPage>, @unchecked Sendable {
        private let cursor: String?

        init(cursor: String?, configuration: NetworkConfiguration) {
            self.cursor = cursor
            super.init(configuration: configuration)
        }

        override func createAsyncServerRequest() -> ServerRequest {
            ServerRequest(
                method: .get, baseUrl: API.base, relativeUrl: "/feed",
                parameters: .query(cursor.map { ["after": .string($0)] } ?? [:]))
        }
    }

    // README "Testing your services": a transport of your own.
    struct RecordingTransport: Transport {
        let sent: Locked<[String]>

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            sent.withLock { $0.append("\(request.method) \(request.url.path)") }
            return TransportResponse(
                statusCode: 201,  // the HTTP status
                headers: ["Content-Type": "application/json"],  // HTTPHeaders, a dictionary literal
                body: Data(#"{"id": 7}"#.utf8),  // the whole body, as one chunk
                url: request.url  // the final URL after redirects (optional)
            )
        }
    }

    /// A tiny lock box for the recording transport; the library's own is internal.
    final class Locked<Value: Sendable>: @unchecked Sendable {  // safe: `value` only under `lock`
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func withLock<R>(_ body: (inout Value) -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }
}

@Suite(.timeLimit(.minutes(3))) struct ReadmeExampleTests {
    private let callbacks = DispatchQueue(label: "readme.callbacks")

    @Test func serverRequestInitializerLabelsBuildTheDescribedRequest() async throws {
        let sent = Readme.Locked<[String]>([])
        let configuration = NetworkConfiguration(
            transport: Readme.RecordingTransport(sent: sent), callbackQueue: callbacks, taskPool: TaskPool())

        let order = try await Readme.CreateOrderRequest(configuration: configuration).performAsync()

        #expect(order == Readme.Order(id: 7))
        #expect(sent.withLock { $0 } == ["POST /v1/orders"])
    }

    @Test func errorFieldsSayWhatTheServerAnswered() async {
        let configuration = NetworkConfiguration(
            transport: StubTransport.json(#"{"message": "Out of stock", "code": "E42"}"#, status: 409),
            callbackQueue: callbacks, taskPool: TaskPool())

        // README "Errors": what a BaseServerError carries.
        let result = await Readme.CreateOrderRequest(configuration: configuration).perform().result
        guard case .failure(let error as BaseServerError) = result else {
            Issue.record("expected a BaseServerError, got \(result)")
            return
        }
        let code = error.code  // .server: the body named the error (.badStatus if it did not)
        let status = error.statusCode  // 409: the HTTP status, when a response arrived
        let message = error.message  // "Out of stock": the server's message
        let serverCode = error.serverCode  // "E42": the code in the server's body
        let keyPath = error.keyPath  // for .cantMapping: the key path that failed, e.g. "items[3].price"

        #expect(code == .server)
        #expect(status == 409)
        #expect(message == "Out of stock")
        #expect(serverCode == "E42")
        #expect(keyPath == nil)
        #expect(error.body == Data(#"{"message": "Out of stock", "code": "E42"}"#.utf8))
    }

    @Test func anInjectedManagerWithAnInMemoryStoreAuthorizesRequests() async throws {
        let sentAuthorization = Readme.Locked<[String]>([])

        // README "Token refresh": an injected manager instead of `.shared` (tests, several accounts).
        let manager = AccessSafeRequestManager(
            store: InMemoryTokenStore(AuthTokens(accessToken: "a1", refreshToken: "r1")),  // memory only
            refresher: ClosureTokenRefresher { tokens in
                AuthTokens(accessToken: "a2", refreshToken: tokens.refreshToken)
            },
            options: AccessSafeRequestManager.Options()  // trigger, limits, timeout, clock
        )
        var configuration = NetworkConfiguration()
        configuration.accessManager = manager

        configuration.transport = StubTransport { request in
            sentAuthorization.withLock { $0.append(request.headers["Authorization"] ?? "") }
            return TransportResponse(statusCode: 200, body: Data(#"{"id": 1}"#.utf8), url: request.url)
        }
        configuration.callbackQueue = callbacks
        configuration.taskPool = TaskPool()
        _ = try await Readme.CreateOrderRequest(configuration: configuration).performAsync()

        #expect(sentAuthorization.withLock { $0 } == ["Bearer a1"])
    }

    @Test func preparatorsAndThePrintLoggerShapeEveryRequest() async throws {
        let lines = Readme.Locked<[String]>([])
        let sent = Readme.Locked<[String]>([])
        let transport = StubTransport { request in
            sent.withLock { $0.append(request.url.absoluteString + " " + (request.headers["X-Client"] ?? "")) }
            return TransportResponse(statusCode: 200, body: Data(#"{"id": 1}"#.utf8), url: request.url)
        }

        // README "Common headers, parameters and logging".
        var configuration = NetworkConfiguration()  // or NetworkConfiguration.default
        configuration.preparators = [
            DefaultHeadersPreparator(extraHeaders: ["X-Client": "ios-4.2"]),  // + Accept, User-Agent
            CommonQueryPreparator(["api_version": "2"]),  // a request's own .query items win
            ClosurePreparator { request in  // anything else, async, may throw
                var request = request
                request.headers["X-Request-Start"] = "\(Int(Date().timeIntervalSince1970))"
                return request
            },
        ]
        configuration.logger = PrintNetworkLogger(
            includesBodies: false, includesCURL: false,
            sink: { line in lines.withLock { $0.append(line) } }  // print by default
        )

        configuration.transport = transport
        configuration.callbackQueue = callbacks
        configuration.taskPool = TaskPool()
        _ = try await Readme.CreateOrderRequest(configuration: configuration).performAsync()

        #expect(sent.withLock { $0 } == ["https://api.example.com/v1/orders?api_version=2 ios-4.2"])
        #expect(lines.withLock { $0.count } == 2)
    }

    @Test func contextStateAndTheTaskPoolAreReadable() async throws {
        let pool = TaskPool()
        let gate = AsyncStream<Void>.makeStream()
        let configuration = NetworkConfiguration(
            transport: StubTransport { request in
                for await _ in gate.stream { break }
                return TransportResponse(statusCode: 200, body: Data(#"{"id": 1}"#.utf8), url: request.url)
            },
            callbackQueue: callbacks, taskPool: pool)

        // README "Contexts": reading state without a handler.
        let context = Readme.CreateOrderRequest(configuration: configuration).perform()
        let inFlight = pool.find(id: "create-order-7")  // TaskPool.Entry (id, method, url, startedAt) or nil
        let finished = context.isFinished  // true once the outcome is decided, maybe before handlers ran
        #expect(!finished)

        #expect(inFlight?.method == .post)
        gate.continuation.yield()
        gate.continuation.finish()
        let result = await context.result  // Result<Order, any Error>, never throws
        #expect(try result.get() == Readme.Order(id: 1))
        #expect(context.isFinished)
    }

    @Test func anIntegerCursorIsPagedAsItsText() async throws {
        let configuration = NetworkConfiguration(
            transport: StubTransport { request in
                let after = request.url.query ?? ""
                let body =
                    after.isEmpty ? #"{"items": [{"id": 1}], "next": 41}"# : #"{"items": [{"id": 2}], "next": null}"#
                return TransportResponse(statusCode: 200, body: Data(body.utf8), url: request.url)
            },
            callbackQueue: callbacks, taskPool: TaskPool())

        let feed = CursorPaginator<Readme.Post> { cursor in
            Readme.FeedRequest(cursor: cursor, configuration: configuration).perform()
        }
        var ids: [Int] = []
        for try await page in feed.pages {
            ids += page.items.map { $0.id }
        }

        #expect(ids == [1, 2])
        #expect(!feed.isLoading)
    }
}
