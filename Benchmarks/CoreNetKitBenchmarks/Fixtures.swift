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

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The loopback server every benchmark talks to: by default embedded, started once per process;
/// with `CORENETKIT_BENCH_SERVER=http://127.0.0.1:PORT` a server in its own process (start one
/// with `corenetkit-stream serve`, which prints its port), so the server's work does not share
/// the client's process, allocator and thread pools.
enum Fixture {
    private static let started = Task { try await TestServer.start() }

    static func server() async throws -> TestServer { try await started.value }

    /// The base URL of the server the throughput and ratio benchmarks use.
    static func baseURL() async throws -> URL {
        if let external = ProcessInfo.processInfo.environment["CORENETKIT_BENCH_SERVER"],
            let url = URL(string: external)
        {
            return url
        }
        return try await server().baseURL
    }
}

/// The demo API's user, as the 20-item benchmark page holds them.
struct User: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
}

/// A 20-item page: `{"items": [...], "total": 20}`.
struct UserPage: Codable, Sendable {
    let items: [User]
    let total: Int
}

/// A request built from a closure, like the ones an app writes per endpoint.
final class BenchRequest<Model: Sendable>: BaseServerRequest<Model>, @unchecked Sendable {
    private let make: @Sendable () -> ServerRequest

    init(configuration: NetworkConfiguration, _ make: @escaping @Sendable () -> ServerRequest) {
        self.make = make
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() -> ServerRequest { make() }
}

/// `GET /bench/page` decoded as ``UserPage``.
func benchPageRequest(
    baseURL: URL, configuration: NetworkConfiguration,
    cachePolicy: CachePolicy = .serverOnly
) -> BenchRequest<UserPage> {
    BenchRequest(configuration: configuration) {
        ServerRequest(method: .get, baseUrl: baseURL, relativeUrl: "/bench/page", cachePolicy: cachePolicy)
    }
}

/// The exact bytes the server's benchmark page answers with.
func benchPageBytes() -> Data {
    let users = (1...20).map { User(id: $0, name: "User \($0)", email: "user\($0)@example.com") }
    return try! JSONEncoder().encode(UserPage(items: users, total: 20))  // safe: encoding plain structs cannot fail
}

/// A configuration for benchmarks: its own pool, no logger, a background callback queue.
///
/// With `CORENETKIT_BENCH_NO_DEADLINE=1` in the environment the requests have no deadline
/// (`timeout = .infinity`): a diagnostic run that shows what the deadline's Task costs.
func benchConfiguration(transport: any Transport) -> NetworkConfiguration {
    var configuration = NetworkConfiguration(
        transport: transport, callbackQueue: DispatchQueue(label: "bench.callbacks"), taskPool: TaskPool())
    if ProcessInfo.processInfo.environment["CORENETKIT_BENCH_NO_DEADLINE"] == "1" { configuration.timeout = .infinity }
    return configuration
}
