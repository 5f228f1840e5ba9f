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

/// Fleets of real child processes (`corenetkit-fleet-child`) sharing one token store, against the
/// loopback server's rotating-token routes (`/family/*`).
enum FleetFixture {
    /// The family's first tokens, as every store starts.
    static let firstTokens = AuthTokens(accessToken: "fam-access-1", refreshToken: "fam-refresh-1")

    /// The child binary, built with the package (`swift build` builds it; `swift test` too).
    static func child() throws -> URL {
        try #require(
            Fleet.childExecutable(),
            "corenetkit-fleet-child was not found beside the test binary: build the package first (swift build)")
    }

    /// Starts `count` children on `store` (`file:PATH` or `postgres:ACCOUNT`), each sending
    /// `requests` requests once told to go.
    static func launch(
        _ count: Int, server: TestServer, store: String, requests: Int = 25, lease: Duration = .seconds(60),
        reportWaiting: Bool = false
    ) async throws -> Fleet {
        let executable = try child()
        let lease = Int(lease.timeInterval * 1000)
        return try await Fleet.launch(count, executable: executable) { index in
            [
                "--base-url", server.baseURL.absoluteString, "--client", "\(index)", "--requests", "\(requests)",
                "--store", store, "--lease-ms", "\(lease)",
            ] + (reportWaiting ? ["--report-waiting"] : [])
        }
    }

    /// The storm: `count` children, 25 requests each, all with the expired token; the refresh is
    /// held at the server until every request of every child waits for it. Returns the children's
    /// reports.
    ///
    /// A request waits either with its 401 or before it is sent: a child that hears its first 401
    /// starts the refresh, and a request it had not yet sent goes out with the new token (so
    /// waiting for all of them to be rejected, as this did, hung when a child's first answer came
    /// back before its last request had its token).
    static func storm(_ count: Int, server: TestServer, store: String) async throws -> [Fleet.Report?] {
        server.family.expireAccessToken()
        server.family.holdRefresh = true
        let fleet = try await launch(count, server: server, store: store, reportWaiting: true)
        fleet.go()
        try await fleet.everyRequestWaits()
        try await server.waitForArrivals(at: "family-refresh", count: 1, timeout: .seconds(60))
        server.release("family-refresh")
        return try await fleet.reports()
    }

    /// A child holds the refresh lock (its refresh is held at the server) and is killed with
    /// SIGKILL; its held refresh is dropped unused. Returns the killed child's index and every report.
    static func killTheRefresher(_ count: Int, server: TestServer, store: String, lease: Duration) async throws -> (
        Int, [Fleet.Report?]
    ) {
        server.family.expireAccessToken()
        server.family.holdRefresh = true
        let fleet = try await launch(count, server: server, store: store, lease: lease)
        fleet.go()
        try await server.waitForArrivals(at: "family-refresh", count: 1, timeout: .seconds(60))
        let victim = try #require(Int(server.family.refreshClients.first ?? ""))
        server.family.holdRefresh = false
        server.family.refuseHeldRefreshes = true
        fleet.kill(victim)
        server.release("family-refresh")
        return (victim, try await fleet.reports())
    }

    /// The refresh is refused: every child's requests wait for the one refresh, which fails.
    static func refusedRefresh(_ count: Int, server: TestServer, store: String) async throws -> [Fleet.Report?] {
        server.family.refreshShouldFail = true
        return try await storm(count, server: server, store: store)
    }
}

/// A temporary folder for a token file, removed afterwards.
func withTokenFolder<T: Sendable>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("corenetkit-fleet-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}
