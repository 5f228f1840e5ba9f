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

/// The embedded loopback server every benchmark talks to, started once per process.
enum Fixture {
    private static let started = Task { try await TestServer.start() }

    static func server() async throws -> TestServer { try await started.value }
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
func benchConfiguration(transport: any Transport) -> NetworkConfiguration {
    NetworkConfiguration(
        transport: transport, callbackQueue: DispatchQueue(label: "bench.callbacks"), taskPool: TaskPool())
}
