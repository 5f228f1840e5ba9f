//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Foundation

/// `GET /events/sse`: a Server-Sent Events stream of the embedded API.
final class EventFeedRequest: BaseServerRequest<Never>, @unchecked Sendable {
    private let query: String

    init(query: String) {
        self.query = query
    }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/events/sse?\(query)")
    }
}

func runStreamingDemo(server: TestServer) async throws {
    section("Streaming: Server-Sent Events as they arrive, and a reconnection")
    var shown = 0
    for try await event in EventFeedRequest(query: "count=5").stream().events {
        print("event #\(event.id ?? "-") (\(event.event)): \(event.data.replacingOccurrences(of: "\n", with: " / "))")
        shown += 1
    }
    print("\(shown) events, then the stream ended")

    var received = 0
    var lastId = ""
    let dropped = EventFeedRequest(query: "count=200&dropAfter=120")
    for try await event in dropped.stream().events(reconnecting: .automatic) {
        received += 1
        lastId = event.id ?? lastId
    }
    print(
        "the server dropped the connection after event 120; the loop reconnected with Last-Event-ID "
            + "and read \(received) events, each once, up to #\(lastId) "
            + "(server saw GET /events/sse \(server.hits("GET", "/events/sse")) times)")
}
