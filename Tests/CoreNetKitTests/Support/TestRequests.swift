//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Dispatch
import Foundation

/// A configuration for one test: its own task pool and a serial callback queue.
func testConfiguration(
    transport: (any Transport)? = nil,
    queue: DispatchQueue = DispatchQueue(label: "tests.callbacks"),
    _ adjust: (inout NetworkConfiguration) -> Void = { _ in }
) -> NetworkConfiguration {
    var configuration = NetworkConfiguration(
        transport: transport ?? sharedTestTransport, callbackQueue: queue,
        timeout: 30, taskPool: TaskPool())
    adjust(&configuration)
    return configuration
}

/// One transport for the whole suite, as an app would have: URLSession by default, and
/// AsyncHTTPClient when the suite runs with `--traits AsyncHTTPClient`, so both transports
/// pass the same tests.
#if AsyncHTTPClient
let sharedTestTransport: any Transport = AsyncHTTPClientTransport()
#else
let sharedTestTransport: any Transport = URLSessionTransport()
#endif

/// A new transport of the kind the suite runs on.
func makeTestTransport() -> any Transport {
    #if AsyncHTTPClient
    AsyncHTTPClientTransport()
    #else
    URLSessionTransport()
    #endif
}

/// A request built from a closure, for tests.
final class TestRequest<Model: Sendable>: BaseServerRequest<Model>, @unchecked Sendable {
    private let make: @Sendable () throws -> ServerRequest
    private let keyPath: String?

    init(
        configuration: NetworkConfiguration, keyPath: String? = nil,
        _ make: @escaping @Sendable () throws -> ServerRequest
    ) {
        self.make = make
        self.keyPath = keyPath
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() throws -> ServerRequest { try make() }
    override var modelKeyPath: String? { keyPath }
}

/// The demo API's user.
struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
    let email: String
}

/// The test server's echo of a request.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let rawQuery: String?
    let query: [[String]]
    let headers: [String: String]
    let body: String?
    let bodyLength: Int
}

extension TestServer {
    /// A GET request description for `path` on this server.
    func get(
        _ path: String, parameters: ServerRequestParameter = .none, headers: [String: String] = [:],
        timeout: TimeInterval? = nil, id: String? = nil
    ) -> ServerRequest {
        ServerRequest(
            method: .get, baseUrl: baseURL, relativeUrl: path, headers: headers, parameters: parameters,
            timeout: timeout, requestId: id)
    }
}
