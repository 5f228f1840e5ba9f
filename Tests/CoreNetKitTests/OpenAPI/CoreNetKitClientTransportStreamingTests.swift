//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if OpenAPI
import CoreNetKitTestServer
import Crypto
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@testable import CoreNetKit

/// Bodies streamed both ways through ``CoreNetKitClientTransport/send(_:body:baseURL:operationID:)``,
/// called as a generated client calls it, against the loopback server.
@Suite(.timeLimit(.minutes(3))) struct CoreNetKitClientTransportStreamingTests {
    @Test func sendReturnsBeforeTheResponseBodyEndsAndItsChunksArriveAsTheyCome() async throws {
        try await withTestServer { server in
            try await withTimeout(60, "a streamed download") {
                let transport = CoreNetKitClientTransport(configuration: testConfiguration())
                let total = 3_000_000
                let first = 1_000_000

                // The server sends `first` bytes, then holds the rest until the gate opens.
                let (response, body) = try await transport.send(
                    HTTPRequest(
                        method: .get, scheme: nil, authority: nil,
                        path: "/transfer/partial/\(total)?after=\(first)&gate=stream-early"), body: nil,
                    baseURL: server.baseURL, operationID: "partial")
                let stream = try #require(body)
                var iterator = stream.makeAsyncIterator()
                var received = Data()
                var chunks = 0
                while received.count < first, let chunk = try await iterator.next() {
                    received.append(contentsOf: chunk)
                    chunks += 1
                }
                let beforeRelease = received.count
                server.release("stream-early")
                while let chunk = try await iterator.next() {
                    received.append(contentsOf: chunk)
                    chunks += 1
                }

                #expect(response.status == .ok)
                #expect(stream.length == .known(Int64(total)))
                #expect(beforeRelease == first)
                #expect(chunks > 1)
                #expect(received == downloadPattern(count: total))
            }
        }
    }

    @Test func streamedResponseBodyMatchesTheServersSHA256() async throws {
        try await withTestServer { server in
            try await withTimeout(60, "a streamed download") {
                let transport = CoreNetKitClientTransport(configuration: testConfiguration())

                let (response, body) = try await transport.send(
                    HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/download/5000000"), body: nil,
                    baseURL: server.baseURL,
                    operationID: "download")
                var hasher = Crypto.SHA256()
                var size = 0
                for try await chunk in try #require(body) {
                    size += chunk.count
                    hasher.update(data: chunk)
                }

                #expect(size == 5_000_000)
                #expect(hasher.finalize().hex == response.headerFields[HTTPField.Name("X-SHA256")!])
                #expect(body?.iterationBehavior == .single)
            }
        }
    }

    @Test func requestBodyOfUnknownLengthArrivesWholeAtTheServer() async throws {
        try await withTestServer { server in
            try await withTimeout(60, "a streamed upload") {
                let transport = CoreNetKitClientTransport(configuration: testConfiguration())
                let data = downloadPattern(count: 4_000_000)

                let (response, body) = try await transport.send(
                    HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/upload/raw"),
                    body: streamedBody(data), baseURL: server.baseURL, operationID: "upload")
                let reply = try JSONDecoder().decode(
                    UploadReply.self, from: try await Data(collecting: try #require(body), upTo: 1 << 20))

                #expect(response.status == .ok)
                #expect(reply.size == data.count)
                #expect(reply.sha256 == Crypto.SHA256.hash(data: data).hex)
            }
        }
    }

    @Test func scratchFileOfAStreamedRequestBodyIsOwnerOnlyAndGoneAfterwards() async throws {
        try await withScratchDirectory { directory in
            try await withTestServer { server in
                try await withTimeout(60, "a held upload") {
                    let transport = CoreNetKitClientTransport(
                        configuration: testConfiguration(), temporaryDirectory: directory)
                    let data = downloadPattern(count: 3_000_000)
                    let call = Task {
                        let (_, body) = try await transport.send(
                            HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/stream/upload/scratch"),
                            body: streamedBody(data), baseURL: server.baseURL, operationID: "upload")
                        return try await Data(collecting: try #require(body), upTo: 1 << 20)
                    }
                    try await server.waitForArrivals(at: "scratch", count: 1)
                    let during = contents(of: directory)
                    let permissions = try during.first.map { name in
                        try FileManager.default.attributesOfItem(
                            atPath: directory.appendingPathComponent(name).path)[.posixPermissions] as? NSNumber
                    }

                    server.release("scratch")
                    let reply = try JSONDecoder().decode(UploadReply.self, from: try await call.value)

                    #expect(during.count == 1)
                    #expect(permissions??.intValue == 0o600)
                    #expect(reply.size == data.count)
                    #expect(contents(of: directory).isEmpty)
                }
            }
        }
    }

    @Test func cancellingTheTaskReadingTheBodyCancelsTheRequest() async throws {
        try await withTestServer { server in
            try await withTimeout(60, "a cancelled download") {
                let configuration = testConfiguration()
                let transport = CoreNetKitClientTransport(configuration: configuration)
                let (_, body) = try await transport.send(
                    HTTPRequest(
                        method: .get, scheme: nil, authority: nil,
                        path: "/transfer/partial/3000000?after=500000&gate=stream-cancel"), body: nil,
                    baseURL: server.baseURL, operationID: "partial")
                let stream = try #require(body)
                let firstChunk = Once<Void>()
                let reading = Task {
                    var size = 0
                    for try await chunk in stream {
                        size += chunk.count
                        firstChunk.fire(())
                    }
                    return size
                }
                await firstChunk.value

                reading.cancel()
                let result = await reading.result

                guard case .failure(let error) = result else {
                    Issue.record("expected the read to fail, got \(result)")
                    return
                }
                #expect((error as? BaseServerError)?.code == .cancelled)
                #expect(configuration.taskPool.isEmpty)
            }
        }
    }

    @Test func droppingAnUnreadBodyCancelsTheRequest() async throws {
        try await withTestServer { server in
            try await withTimeout(60, "a dropped download") {
                let monitor = RecordingMonitor()
                let configuration = testConfiguration { $0.monitors = [monitor] }
                let transport = CoreNetKitClientTransport(configuration: configuration)
                do {
                    let (response, body) = try await transport.send(
                        HTTPRequest(
                            method: .get, scheme: nil, authority: nil,
                            path: "/transfer/partial/3000000?after=1000&gate=stream-drop"), body: nil,
                        baseURL: server.baseURL, operationID: "partial")
                    #expect(response.status == .ok)
                    #expect(body != nil)
                }

                let events = try await monitor.events()

                #expect(events.last == "cancelled")
            }
        }
    }

    @Test func streamedBodyThatBreaksOffIsNotRetried() async throws {
        try await withTestServer { server in
            try await withTimeout(60, "a broken download") {
                let configuration = testConfiguration {
                    $0.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .zero, jitter: { 0 })
                }
                let transport = CoreNetKitClientTransport(configuration: configuration)
                let path = "/transfer/partial/2000000?after=100000"

                // The server drops the connection after `after` bytes: a retryable failure, but
                // the client already has the first attempt's head and bytes.
                let (_, body) = try await transport.send(
                    HTTPRequest(method: .get, scheme: nil, authority: nil, path: path), body: nil,
                    baseURL: server.baseURL, operationID: "partial")
                var size = 0
                let error = await #expect(throws: BaseServerError.self) {
                    for try await chunk in try #require(body) { size += chunk.count }
                }

                #expect(error?.code == .connectionLost)
                #expect(size <= 100_000)
                #expect(server.hits(path: "/transfer/partial/2000000") == 1)
                #expect(configuration.taskPool.isEmpty)
            }
        }
    }

    @Test func rejectedTokenIsRefreshedAndTheStreamedRequestReplayed() async throws {
        try await withTestServer { server in
            try await withTimeout(60, "a replayed request") {
                let auth = AuthFixture(server: server)
                let transport = CoreNetKitClientTransport(configuration: auth.configuration)
                server.auth.expireAccessToken()

                // A body of unknown length goes through a scratch file, which the replay sends again.
                let (response, body) = try await transport.send(
                    HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/protected/streamed"),
                    body: streamedBody(Data(repeating: 7, count: 20_000)), baseURL: server.baseURL,
                    operationID: "protected")
                let stream = try #require(body)
                let reply = try JSONDecoder().decode(
                    [String: String].self, from: try await Data(collecting: stream, upTo: 1 << 20))

                #expect(response.status == .ok)
                #expect(stream.iterationBehavior == .single)
                #expect(reply["id"] == "streamed")
                #expect(server.hits("POST", "/auth/refresh") == 1)
                #expect(server.hits("POST", "/protected/streamed") == 2)
            }
        }
    }
}

/// `POST /upload/raw`'s answer.
private struct UploadReply: Decodable {
    let size: Int
    let sha256: String
}

/// `data` as a body of unknown length, in 64 KiB chunks from an `AsyncStream`.
private func streamedBody(_ data: Data) -> HTTPBody {
    let (stream, continuation) = AsyncStream<HTTPBody.ByteChunk>.makeStream()
    let bytes = [UInt8](data)
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + 64 * 1024, bytes.count)
        continuation.yield(bytes[offset..<end])
        offset = end
    }
    continuation.finish()
    return HTTPBody(stream, length: .unknown)
}
#endif
