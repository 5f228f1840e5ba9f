//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import Foundation

#if Postgres
import PostgresNIO
#endif

/// The child's command line.
struct FleetArguments {
    var baseURL = URL(string: "http://127.0.0.1")!
    var client = "child"
    var requests = 25
    var store = "memory"
    var lease: Duration = .seconds(60)
    var waitForGo = true
    /// Print `WAITING` once every request waits for a refresh.
    var reportWaiting = false

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments.makeIterator()
        while let name = rest.next() {
            switch name {
            case "--base-url": baseURL = URL(string: rest.next() ?? "") ?? baseURL
            case "--client": client = rest.next() ?? client
            case "--requests": requests = Int(rest.next() ?? "") ?? requests
            case "--store": store = rest.next() ?? store
            case "--lease-ms": lease = .milliseconds(Int(rest.next() ?? "") ?? 60_000)
            case "--no-wait": waitForGo = false
            case "--report-waiting": reportWaiting = true
            default:
                FileHandle.standardError.write(Data("corenetkit-fleet-child: unknown argument \(name)\n".utf8))
                exit(2)
            }
        }
    }
}

/// What the child prints at the end (times in milliseconds since 1970).
struct FleetReport: Codable {
    var successes: Int
    var failures: [String: Int]
    var sessionEnds: Int
    var startedAt: Int64
    var lastSuccessAt: Int64?
}

/// A thread-safe count.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

extension Date {
    var millis: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}

func makeTransport() -> any Transport {
    #if AsyncHTTPClient
    AsyncHTTPClientTransport()
    #else
    URLSessionTransport()
    #endif
}

/// The store `--store` names. `memory` starts with the family's first tokens.
func makeStore(_ arguments: FleetArguments) async throws -> any TokenStore {
    if arguments.store.hasPrefix("file:") {
        return FileTokenStore(url: URL(fileURLWithPath: String(arguments.store.dropFirst(5))), lease: arguments.lease)
    }
    if arguments.store.hasPrefix("postgres:") {
        #if Postgres
        return try await PostgresTokenStore(
            configuration: PostgresEnvironment.configuration(), account: String(arguments.store.dropFirst(9)),
            lease: arguments.lease)
        #else
        fatalError("built without the Postgres trait")
        #endif
    }
    return InMemoryTokenStore(AuthTokens(accessToken: "fam-access-1", refreshToken: "fam-refresh-1"))
}

/// `POST /family/refresh`'s answer.
struct FamilyTokens: Decodable, Sendable {
    let accessToken: String
    let refreshToken: String
    let expiresIn: Double
}

/// `/family/protected/:id`'s answer.
struct FamilyItem: Decodable, Sendable {
    let id: String
}

final class FamilyRefreshRequest: BaseServerRequest<FamilyTokens>, @unchecked Sendable {
    private let baseURL: URL
    private let client: String
    private let refreshToken: String

    init(baseURL: URL, client: String, refreshToken: String, configuration: NetworkConfiguration) {
        self.baseURL = baseURL
        self.client = client
        self.refreshToken = refreshToken
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(
            method: .post, baseUrl: baseURL, relativeUrl: "/family/refresh", headers: ["X-Fleet-Client": client],
            parameters: .jsonObject(["refreshToken": .string(refreshToken)]), requiresAuthorization: false)
    }
}

final class FamilyProtectedRequest: BaseServerRequest<FamilyItem>, @unchecked Sendable {
    private let baseURL: URL
    private let id: String

    init(baseURL: URL, id: String, configuration: NetworkConfiguration) {
        self.baseURL = baseURL
        self.id = id
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: baseURL, relativeUrl: "/family/protected/\(id)")
    }
}

/// Refreshes at `/family/refresh`, naming this child in `X-Fleet-Client`.
struct FamilyRefresher: TokenRefresher {
    let baseURL: URL
    let client: String
    let configuration: NetworkConfiguration

    func refresh(_ tokens: AuthTokens) async throws -> AuthTokens {
        let reply = try await FamilyRefreshRequest(
            baseURL: baseURL, client: client, refreshToken: tokens.refreshToken ?? "", configuration: configuration
        ).performAsync()
        return AuthTokens(accessToken: reply.accessToken, refreshToken: reply.refreshToken, expiresIn: reply.expiresIn)
    }
}

#if Postgres
/// The database the `postgres:` store uses: `CORENETKIT_POSTGRES_HOST` (127.0.0.1), `_PORT`
/// (5432), `_USER` (postgres), `_PASSWORD`, `_DATABASE` (postgres).
enum PostgresEnvironment {
    static func configuration() -> PostgresConnection.Configuration {
        let environment = ProcessInfo.processInfo.environment
        return PostgresConnection.Configuration(
            host: environment["CORENETKIT_POSTGRES_HOST"] ?? "127.0.0.1",
            port: Int(environment["CORENETKIT_POSTGRES_PORT"] ?? "") ?? 5432,
            username: environment["CORENETKIT_POSTGRES_USER"] ?? "postgres",
            password: environment["CORENETKIT_POSTGRES_PASSWORD"],
            database: environment["CORENETKIT_POSTGRES_DATABASE"] ?? "postgres", tls: .disable)
    }
}
#endif
