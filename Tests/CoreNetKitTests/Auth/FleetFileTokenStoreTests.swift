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

/// Issue 22: real child processes, each with its own manager, share one FileTokenStore and make
/// one refresh for the fleet against rotating refresh tokens that revoke the family on reuse.
@Suite(.serialized, .timeLimit(.minutes(3))) struct FleetFileTokenStoreTests {
    @Test func eightProcessesWithAnExpiredTokenMakeOneRefreshAndAll200RequestsSucceed() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let store = FileTokenStore(url: folder.appendingPathComponent("tokens.json"))
                try store.write(SharedTokens(tokens: FleetFixture.firstTokens))

                let reports = try await FleetFixture.storm(8, server: server, store: "file:\(store.url.path)")

                #expect(reports.map { $0?.successes } == Array(repeating: 25, count: 8))
                #expect(reports.allSatisfy { $0?.sessionEnds == 0 })
                #expect(server.family.refreshCalls == 1)
                #expect(server.family.rotations == 1)
                #expect(server.family.successes == 200)
                #expect(!server.family.isRevoked)
                #expect(try store.entry().isSessionEnded == false)
                #expect(store.load()?.accessToken == "fam-access-2")
                #expect(store.load()?.refreshToken == "fam-refresh-2")
            }
        }
    }

    @Test func aProcessKilledWhileHoldingTheRefreshLockLetsTheOthersRefreshOnceAndSucceed() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let store = FileTokenStore(url: folder.appendingPathComponent("tokens.json"))
                try store.write(SharedTokens(tokens: FleetFixture.firstTokens))

                let (victim, reports) = try await FleetFixture.killTheRefresher(
                    4, server: server, store: "file:\(store.url.path)", lease: .seconds(5))

                #expect(reports[victim] == nil)
                for (index, report) in reports.enumerated() where index != victim {
                    #expect(report?.successes == 25)
                }
                #expect(server.family.rotations == 1)
                #expect(server.family.refreshCalls == 2)  // the killed child's, dropped unused, and one more
                #expect(!server.family.isRevoked)
                #expect(store.load()?.accessToken == "fam-access-2")
            }
        }
    }

    @Test func aRefusedRefreshEndsTheSessionOnceInEveryProcessAndNoneSendsTheDeadTokenAgain() async throws {
        try await withTestServer { server in
            try await withTokenFolder { folder in
                let store = FileTokenStore(url: folder.appendingPathComponent("tokens.json"))
                try store.write(SharedTokens(tokens: FleetFixture.firstTokens))

                let reports = try await FleetFixture.refusedRefresh(8, server: server, store: "file:\(store.url.path)")

                for report in reports {
                    #expect(report?.successes == 0)
                    #expect(report?.failures == ["tokenRefreshFailed": 25])
                    #expect(report?.sessionEnds == 1)
                }
                #expect(server.family.refreshCalls == 1)
                #expect(server.family.deadTokenRetries == 0)
                #expect(try store.entry() == SharedTokens(tokens: FleetFixture.firstTokens, isSessionEnded: true))
                #expect(store.load() == nil)
            }
        }
    }
}
