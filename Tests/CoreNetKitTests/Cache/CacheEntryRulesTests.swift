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

/// What becomes an entry (HTTP decides, and only a whole body), and the one rule for an entry the
/// request cannot read: it is a miss, never a failure the server would have answered.
@Suite(.timeLimit(.minutes(3))) struct CacheEntryRulesTests {
    /// A body cut by a dropped connection (a lying `Content-Length`, a chunk cut short) fails the
    /// request and leaves no entry; the whole body of the same server does become one.
    @Test(arguments: [
        (FaultServer.Fault.midBody, false), (.midChunk, false), (.ok, true),
    ])
    func aCutBodyNeverBecomesAnEntry(fault: FaultServer.Fault, stored: Bool) async throws {
        try await withFaultServer { faults in
            let configuration = cacheConfiguration(UrlCacheAdapter(memoryCapacity: 1 << 20, diskCapacity: 0))
            let path = "/fault/\(fault.rawValue)"

            let sent = await result(faults.baseURL, path, .serverOnly, configuration)
            let cached = await result(faults.baseURL, path, .cacheOnly, configuration)

            switch (sent, cached) {
            case (.success, .success):
                #expect(stored, "\(fault)")
            case (.failure(let error), .failure(let miss)):
                #expect(!stored, "\(fault)")
                #expect((error as? BaseServerError)?.code == .connectionLost)
                #expect((miss as? BaseServerError)?.code == .cacheMiss)
            default:
                Issue.record("\(fault): sent \(sent), then from the cache \(cached)")
            }
        }
    }

    /// A fresh entry the mapping cannot read does not fail the request: the server is asked, its
    /// answer is delivered and replaces the entry, which answers the next request.
    @Test func aFreshEntryTheMappingCannotReadIsAMissAndTheServersAnswerReplacesIt() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = freshnessConfiguration(DiskCacheAdapter(directory: directory), clock: wallClock())
                let path = "/cache/fresh/unreadable?cc=max-age%3D100"
                _ = try await server.request(path, .serverOnly).perform(Counter.self, configuration).log.success()

                let (first, firstLog) = server.request(path, .cacheIfFreshElseServer).perform(
                    LaterCounter.self, configuration)
                let replaced = try await firstLog.success()
                let (second, secondLog) = server.request(path, .cacheIfFreshElseServer).perform(
                    LaterCounter.self, configuration)
                let cached = try await secondLog.success()

                #expect(replaced.value == 2 && !first.isFromCache)
                #expect(cached.value == 2 && second.isFromCache)
                #expect(server.hits("GET", "/cache/fresh/unreadable") == 2)
            }
        }
    }

    /// `cacheOnly` never asks the server: an entry it cannot read is a `cacheMiss` that carries
    /// the mapping's error; `firstCacheThenRefreshFromServer` skips `onCacheSuccess` and delivers
    /// the server's model.
    @Test func anEntryTheMappingCannotReadIsACacheMissOrNoEarlyAnswer() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                let configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                let path = "/counter/unreadable-entry"
                _ = try await server.request(path, .serverOnly).perform(Counter.self, configuration).log.success()

                let miss = try await server.request(path, .cacheOnly).perform(LaterCounter.self, configuration).log
                    .failure()
                let (_, log) = server.request(path, .firstCacheThenRefreshFromServer).perform(
                    LaterCounter.self, configuration)
                let fresh = try await log.success()

                let error = miss as? BaseServerError
                #expect(error?.code == .cacheMiss)
                #expect((error?.underlyingError as? BaseServerError)?.code == .cantMapping)
                await drain(configuration.callbackQueue)
                #expect(log.names == ["success", "completed"])
                #expect(fresh.value == 2)
                #expect(server.hits("GET", path) == 2)
            }
        }
    }

    /// An entry the configuration's validators reject is a miss too: `serverIfFailReadFromCache`
    /// does not fall back to it.
    @Test func anEntryTheValidatorsRejectIsAMiss() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                var configuration = cacheConfiguration(DiskCacheAdapter(directory: directory))
                let path = "/counter/rejected-entry"
                _ = try await server.request(path, .serverOnly).perform(Counter.self, configuration).log.success()
                configuration.validators.append(RejectingValidator())

                let error = try await server.request(path, .cacheOnly).perform(Counter.self, configuration).log
                    .failure()

                #expect((error as? BaseServerError)?.code == .cacheMiss)
            }
        }
    }
}

/// The counter of `/cache/fresh` and `/counter`, readable only from its second value on: the
/// first answer stands for an entry an older version of the app stored and this one cannot read.
private struct LaterCounter: Decodable, Sendable {
    let value: Int

    init(from decoder: any Decoder) throws {
        let counter = try Counter(from: decoder)
        guard counter.value > 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the first value is not read"))
        }
        value = counter.value
    }
}

/// Rejects every response.
private struct RejectingValidator: ResponseValidator {
    func validate(_ response: ServerResponse) throws { throw BaseServerError.invalidRequest("rejected") }
}

private func result(
    _ base: URL, _ path: String, _ policy: CachePolicy, _ configuration: NetworkConfiguration
) async -> Result<FaultModel, any Error> {
    let request = TestRequest<FaultModel>(configuration: configuration) {
        ServerRequest(method: .get, baseUrl: base, relativeUrl: path, timeout: 20, cachePolicy: policy)
    }
    do {
        return .success(try await request.performAsync())
    } catch {
        return .failure(error)
    }
}
