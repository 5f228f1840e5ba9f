//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// How long a fleet takes to recover from an expired token: from the storm (every process sends
// its requests with the expired access token at once) to the last success, with one refresh for
// the fleet. 8 processes × 25 requests sharing a FileTokenStore, the same sharing a
// PostgresTokenStore (built with the Postgres trait and a reachable server, see
// CORENETKIT_POSTGRES_* in .ci/run), beside one process with an in-memory store.
//
//   swift build -c release --product corenetkit-fleet-child
//   swift run -c release corenetkit-fleet-bench [runs]
//   swift build -c release --traits Postgres --product corenetkit-fleet-child
//   swift run -c release --traits Postgres corenetkit-fleet-bench [runs]

import CoreNetKit
import CoreNetKitTestServer
import Foundation

#if Postgres
import PostgresNIO
#endif

/// Prints `line` at once (print's buffer is lost if a later run traps).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let runs = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 7
guard let child = Fleet.childExecutable() else {
    fatalError("corenetkit-fleet-child not found beside this binary: build it with the same configuration first")
}
let firstTokens = AuthTokens(accessToken: "fam-access-1", refreshToken: "fam-refresh-1")

/// One storm: `count` children on `store`, `requests` each; the milliseconds from the first
/// request to the last success, and the refreshes the server saw.
func storm(_ count: Int, requests: Int, store: @Sendable () async throws -> String) async throws -> (Int64, Int) {
    try await withTestServer { server in
        server.family.expireAccessToken()
        let store = try await store()
        let fleet = try await Fleet.launch(count, executable: child) { index in
            [
                "--base-url", server.baseURL.absoluteString, "--client", "\(index)", "--requests", "\(requests)",
                "--store", store,
            ]
        }
        fleet.go()
        let reports = try await fleet.reports().compactMap { $0 }
        guard reports.count == count, reports.allSatisfy({ $0.successes == requests }), !server.family.isRevoked else {
            fatalError("the fleet did not recover: \(reports), revoked: \(server.family.isRevoked)")
        }
        let start = reports.map(\.startedAt).min()!
        let end = reports.compactMap(\.lastSuccessAt).max()!
        return (end - start, server.family.refreshCalls)
    }
}

func measure(_ name: String, _ count: Int, requests: Int, store: @escaping @Sendable () async throws -> String)
    async throws
{
    var times: [Int64] = []
    var refreshes: Set<Int> = []
    for _ in 0..<runs {
        let (time, calls) = try await storm(count, requests: requests, store: store)
        times.append(time)
        refreshes.insert(calls)
    }
    times.sort()
    let line = "\(name): median \(times[times.count / 2]) ms, min \(times.first!) ms, max \(times.last!) ms"
    say("\(line) (\(runs) runs; refresh calls per run: \(refreshes.sorted()))")
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("corenetkit-fleet-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

say("Fleet recovery from an expired token: storm to last success (\(runs) runs each)")
try await measure("1 process × 25 requests, InMemoryTokenStore", 1, requests: 25) { "memory" }
try await measure("1 process × 200 requests, InMemoryTokenStore", 1, requests: 200) { "memory" }
try await measure("8 processes × 25 requests, FileTokenStore", 8, requests: 25) {
    let store = FileTokenStore(url: folder.appendingPathComponent("tokens-\(UUID().uuidString).json"))
    try store.write(SharedTokens(tokens: firstTokens))
    return "file:\(store.url.path)"
}
#if Postgres
try await measure("8 processes × 25 requests, PostgresTokenStore", 8, requests: 25) {
    let environment = ProcessInfo.processInfo.environment
    let configuration = PostgresConnection.Configuration(
        host: environment["CORENETKIT_POSTGRES_HOST"] ?? "127.0.0.1",
        port: Int(environment["CORENETKIT_POSTGRES_PORT"] ?? "") ?? 5432,
        username: environment["CORENETKIT_POSTGRES_USER"] ?? "postgres",
        password: environment["CORENETKIT_POSTGRES_PASSWORD"],
        database: environment["CORENETKIT_POSTGRES_DATABASE"] ?? "postgres", tls: .disable)
    let store = try await PostgresTokenStore(configuration: configuration, account: "bench-\(UUID().uuidString)")
    try await store.write(SharedTokens(tokens: firstTokens))
    return "postgres:\(store.account)"
}
#else
say("8 processes × 25 requests, PostgresTokenStore: build with --traits Postgres to measure")
#endif
