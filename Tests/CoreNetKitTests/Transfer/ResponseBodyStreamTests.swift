//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import CoreNetKit

/// The state of a streamed response body, driven by hand: no transport, no server.
@Suite(.timeLimit(.minutes(3))) struct ResponseBodyStreamTests {
    private let request = ServerRequest(method: .get, baseUrl: URL(string: "http://example.invalid")!)

    @Test func twoXXHeadIsAnsweredAtOnceAndItsChunksFollowInOrder() async throws {
        let stream = ResponseBodyStream()

        stream.receiveHead(status: 200, headers: ["Content-Length": "6"])
        await stream.receive(Data("abc".utf8))
        await stream.receive(Data("def".utf8))
        stream.finish(.success(ServerResponse(statusCode: 200, for: request)))

        guard case .streaming(let status, _) = try await stream.answer() else {
            Issue.record("expected a streamed answer")
            return
        }
        #expect(status == 200)
        #expect(try await stream.next() == Data("abc".utf8))
        #expect(try await stream.next() == Data("def".utf8))
        #expect(try await stream.next() == nil)
        #expect(stream.hasSurfacedHead)
    }

    @Test func aReaderThatStaysOneChunkBehindHoldsOnlyTheUnreadChunks() async throws {
        let stream = ResponseBodyStream()
        let chunk = Data(repeating: 1, count: 64 << 10)
        stream.receiveHead(status: 200, headers: [:])
        await stream.receive(chunk)
        var most = 0

        for _ in 1...1000 {
            await stream.receive(chunk)
            _ = try await stream.next()
            most = max(most, stream.heldBytes)
        }

        #expect(most == chunk.count)
    }

    @Test func otherStatusesAndEmptyBodiesWaitForTheWholeResponse() async throws {
        let stream = ResponseBodyStream()

        stream.receiveHead(status: 503, headers: [:])
        stream.receiveHead(status: 204, headers: [:])
        stream.receiveHead(status: 200, headers: ["Content-Length": "0"])
        stream.finish(.success(ServerResponse(statusCode: 404, data: Data("no".utf8), for: request)))

        guard case .complete(let response) = try await stream.answer() else {
            Issue.record("expected the whole response")
            return
        }
        #expect(response.statusCode == 404)
        #expect(response.data == Data("no".utf8))
        #expect(!stream.hasSurfacedHead)
    }

    @Test func secondAttemptAfterASurfacedHeadEndsTheBodyWithAnError() async throws {
        let stream = ResponseBodyStream()
        stream.receiveHead(status: 200, headers: [:])
        await stream.receive(Data("first".utf8))

        stream.receiveHead(status: 200, headers: [:])
        await stream.receive(Data("second".utf8))
        stream.finish(.success(ServerResponse(statusCode: 200, for: request)))

        _ = try await stream.answer()
        #expect(try await stream.next() == Data("first".utf8))
        await #expect(throws: BaseServerError.self) { _ = try await stream.next() }
    }

    @Test func bodyReturnedInMemoryByATransportThatDoesNotStreamIsTheLastChunk() async throws {
        let stream = ResponseBodyStream()
        stream.receiveHead(status: 200, headers: [:])

        stream.finish(.success(ServerResponse(statusCode: 200, data: Data("whole".utf8), for: request)))

        _ = try await stream.answer()
        #expect(try await stream.next() == Data("whole".utf8))
        #expect(try await stream.next() == nil)
    }

    @Test func cancelledReaderGetsCancelledOnceTheRequestEnded() async throws {
        let stream = ResponseBodyStream()
        let request = Task<Void, Never> {}
        stream.attach(request)
        stream.receiveHead(status: 200, headers: [:])
        await stream.receive(Data("buffered".utf8))

        stream.cancel()
        stream.finish(.failure(BaseServerError.cancelled))

        _ = try await stream.answer()
        let error = await #expect(throws: BaseServerError.self) { _ = try await stream.next() }
        #expect(error?.code == .cancelled)
    }

    @Test func failureBeforeAnyHeadIsTheAnswer() async throws {
        let stream = ResponseBodyStream()

        stream.finish(.failure(BaseServerError(code: .connectionLost)))

        let error = await #expect(throws: BaseServerError.self) { _ = try await stream.answer() }
        #expect(error?.code == .connectionLost)
    }
}
