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

/// `/counter/:key` and `/cache/outage/:key`: a value that grows on every server hit.
struct Counter: Decodable, Sendable, Equatable {
    let key: String
    let value: Int
}

/// `/cache/etag/:key`.
struct Versioned: Decodable, Sendable, Equatable {
    let key: String
    let version: Int
}

/// `/cache/vary`.
struct Localized: Decodable, Sendable, Equatable {
    let language: String
    let value: Int
}

/// The two adapters CoreNetKit ships, for tests that pin the ``CacheAdapter`` contract on both.
enum AdapterKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case disk, urlCache

    var testDescription: String { rawValue }

    func make(_ directory: URL) -> any CacheAdapter {
        switch self {
        case .disk: DiskCacheAdapter(directory: directory)
        case .urlCache: UrlCacheAdapter(directory: directory)
        }
    }
}

/// Runs `body` with a new empty directory, removed afterwards.
func withTemporaryDirectory<T: Sendable>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("corenetkit-cache-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// A test configuration that caches through `adapter`.
func cacheConfiguration(_ adapter: any CacheAdapter, logger: (any NetworkLogger)? = nil) -> NetworkConfiguration {
    testConfiguration {
        $0.cacheAdapter = adapter
        $0.logger = logger
    }
}

/// Every regular file under `directory`, at any depth.
func files(in directory: URL) -> [URL] {
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    var found: [URL] = []
    while let url = enumerator?.nextObject() as? URL {
        if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { found.append(url) }
    }
    return found
}

/// Records log entries: what went on the wire and what came back.
final class RecordingLogger: NetworkLogger {
    private let entries = Locked<[NetworkLogEntry]>([])

    func log(_ entry: NetworkLogEntry) { entries.withLock { $0.append(entry) } }

    /// Status codes of the responses, in order.
    var statuses: [Int] { entries.withLock { $0.compactMap { $0.kind == .response ? $0.statusCode : nil } } }

    /// The headers of the requests sent, in order.
    var requestHeaders: [[String: String]] {
        entries.withLock { entries in
            entries.filter { $0.kind == .request }.map { entry in
                Dictionary(entry.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
            }
        }
    }
}

extension TestServer {
    /// A request for `path` on this server with the cache policy `policy`.
    func request(
        _ path: String, _ policy: CachePolicy, method: HTTPMethod = .get, headers: [String: String] = [:],
        timeout: TimeInterval? = nil
    ) -> ServerRequest {
        ServerRequest(
            method: method, baseUrl: baseURL, relativeUrl: path, headers: headers, timeout: timeout,
            cachePolicy: policy)
    }
}

extension ServerRequest {
    /// Performs this request as `Model` with `configuration` and records its events.
    func perform<Model: Decodable & Sendable>(_ type: Model.Type, _ configuration: NetworkConfiguration)
        -> (context: ActiveRequestContext<Model>, log: EventLog<Model>)
    {
        let description = self
        let context = TestRequest<Model>(configuration: configuration) { description }.perform()
        return (context, EventLog(context))
    }
}
