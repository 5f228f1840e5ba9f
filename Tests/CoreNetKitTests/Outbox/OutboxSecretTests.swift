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

/// Issue 44: no `Authorization`, cookie or redacted value in what an outbox stores.
@Suite(.timeLimit(.minutes(3))) struct OutboxSecretTests {
    /// Adds the credentials when the request is sent.
    struct CredentialPreparator: InPlacePreparator {
        func prepare(inPlace request: inout ServerRequest) {
            request.headers["Authorization"] = "Bearer sk-live-outbox-4242"
            request.headers["Cookie"] = "session=cookie-outbox-7373"
        }
    }

    @Test func credentialsAddedAtSendTimeReachTheServerButNeverTheJournal() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let fixture = OutboxFixture(folder: folder) { $0.preparators.append(CredentialPreparator()) }
                let (outbox, log) = try fixture.outbox()

                try await outbox.enqueue(applyChange(server.baseURL, seq: 1), kind: "apply")
                let key = try #require(try await outbox.pending().first?.idempotencyKey)
                let whileQueued = try storedText(in: folder)
                outbox.start()
                _ = try await log.wait(for: 1)
                await outbox.stop()
                let afterwards = try storedText(in: folder)

                #expect(server.outbox.authorization(forKey: key) == "Bearer sk-live-outbox-4242")
                for text in [whileQueued, afterwards] {
                    #expect(!text.isEmpty)
                    // Quoted: a header's name is a JSON key; `requiresAuthorization` is a field of every request.
                    for secret in [
                        #""Authorization""#, "Bearer", "sk-live-outbox-4242", #""Cookie""#, "cookie-outbox-7373",
                    ] {
                        #expect(!text.localizedCaseInsensitiveContains(secret), "\(secret) is stored")
                    }
                }
            }
        }
    }

    @Test(arguments: [
        ("header", ServerRequestParameter.none, ["Authorization": "Bearer abc123456"], ""),
        ("cookie", .none, ["Cookie": "session=abc123456"], ""),
        ("scheme", .none, ["X-Custom": "Basic dXNlcjpwYXNz"], ""),
        ("api key", .none, ["X-Api-Key": "k-123456"], ""),
        ("query", .none, [:], "?access_token=abc123456"),
        ("json field", .jsonObject(["user": ["password": "hunter22"]]), [:], ""),
        ("form field", .formURLEncoded(["client_secret": "s-123456"]), [:], ""),
    ])
    func aRequestCarryingACredentialIsRefusedBeforeAnythingIsStored(
        what: String, parameters: ServerRequestParameter, headers: [String: String], query: String
    ) async throws {
        try await withTokenFolder { folder in
            let (outbox, _) = try OutboxFixture(folder: folder).outbox()
            let request = ServerRequest(
                method: .post, baseUrl: URL(string: "http://127.0.0.1:1")!, relativeUrl: "/outbox/apply/q/1" + query,
                headers: headers, parameters: parameters)

            let error = try await #require(throws: BaseServerError.self, "\(what)") {
                try await outbox.enqueue(request, kind: "apply")
            }

            #expect(error.code == .invalidRequest)
            #expect(try await outbox.count() == 0)
            for value in ["abc123456", "hunter22", "s-123456", "k-123456", "dXNlcjpwYXNz"] {
                #expect(!(try storedText(in: folder)).contains(value))
            }
        }
    }
}
