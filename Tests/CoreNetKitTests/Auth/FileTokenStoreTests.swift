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

/// FileTokenStore on its own: the file, the refresh lock, its lease. Two store objects on one
/// file compete for the lock as two processes would (`flock` locks belong to open files).
@Suite(.timeLimit(.minutes(3))) struct FileTokenStoreTests {
    private let tokens = AuthTokens(accessToken: "a-1", refreshToken: "r-1", expiresAt: Date(timeIntervalSince1970: 5))

    @Test func savedTokensAreReadBackFromAnOwnerOnlyFileWithNoTemporaryFileLeft() async throws {
        try await withTokenFolder { folder in
            let store = FileTokenStore(url: folder.appendingPathComponent("tokens.json"))
            #expect(store.load() == nil)

            store.save(tokens)

            #expect(FileTokenStore(url: store.url).load() == tokens)
            let attributes = try FileManager.default.attributesOfItem(atPath: store.url.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tokens.json"])
            store.save(nil)
            #expect(store.load() == nil)
        }
    }

    @Test func aFileThatIsNotATokenEntryIsAFileAccessErrorAndLoadsAsSignedOut() async throws {
        try await withTokenFolder { folder in
            let store = FileTokenStore(url: folder.appendingPathComponent("tokens.json"))
            try Data("{not json".utf8).write(to: store.url)

            #expect(store.load() == nil)
            #expect(throws: BaseServerError.self) { try store.entry() }
            #expect((try? store.entry()) == nil)
        }
    }

    @Test func aWaiterGetsTheLockWhenTheHolderReleasesItAndSeesWhatTheHolderWrote() async throws {
        try await withTokenFolder { folder in
            let url = folder.appendingPathComponent("tokens.json")
            let holder = FileTokenStore(url: url)
            let waiter = FileTokenStore(url: url)
            try holder.write(SharedTokens(tokens: tokens))
            let holding = Once<Void>()
            let release = Once<Void>()
            let first = Task {
                try await holder.withRefreshLock { _ in
                    holding.fire(())
                    await release.value
                    return (SharedTokens(tokens: AuthTokens(accessToken: "a-2", refreshToken: "r-2")), ())
                }
            }
            await holding.value
            let second = Task { try await waiter.withRefreshLock { stored in (nil, stored.tokens?.accessToken) } }

            release.fire(())

            try await withTimeout(30, "the first holder") { try await first.value }
            #expect(try await withTimeout(30, "the waiter") { try await second.value } == "a-2")
        }
    }

    @Test func aHolderPastItsLeaseIsTakenOverAndItsLateWriteIsRefused() async throws {
        try await withTokenFolder { folder in
            let url = folder.appendingPathComponent("tokens.json")
            let hung = FileTokenStore(url: url, lease: .milliseconds(200))
            let other = FileTokenStore(url: url, lease: .milliseconds(200))
            try hung.write(SharedTokens(tokens: tokens))
            let holding = Once<Void>()
            let wakeUp = Once<Void>()
            let late = Task {
                try await hung.withRefreshLock { _ in
                    holding.fire(())
                    await wakeUp.value
                    return (SharedTokens(tokens: AuthTokens(accessToken: "late")), ())
                }
            }
            await holding.value

            let taken = try await withTimeout(30, "the take-over") {
                try await other.withRefreshLock { stored in
                    (SharedTokens(tokens: AuthTokens(accessToken: "taken-over")), stored.tokens?.accessToken)
                }
            }
            wakeUp.fire(())

            #expect(taken == "a-1")
            let error = try await #require(throws: BaseServerError.self) { try await late.value }
            #expect(error.code == .fileAccess)
            #expect(other.load()?.accessToken == "taken-over")
        }
    }

    @Test func cancellingAWaiterEndsItsWaitAndLeavesTheLockUsable() async throws {
        try await withTokenFolder { folder in
            let url = folder.appendingPathComponent("tokens.json")
            let holder = FileTokenStore(url: url)
            let holding = Once<Void>()
            let release = Once<Void>()
            let first = Task {
                try await holder.withRefreshLock { _ in
                    holding.fire(())
                    await release.value
                    return (nil, ())
                }
            }
            await holding.value
            let waiting = Task { try await FileTokenStore(url: url).withRefreshLock { _ in (nil, ()) } }

            waiting.cancel()

            await #expect(throws: CancellationError.self) {
                try await withTimeout(30, "the cancelled waiter") { try await waiting.value }
            }
            release.fire(())
            try await withTimeout(30, "the holder") { try await first.value }
            try await withTimeout(30, "a later holder") {
                try await FileTokenStore(url: url).withRefreshLock { _ in (nil, ()) }
            }
        }
    }
}
