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

/// The model the fault routes answer (`{"id":1,"name":"ok","tags":["a"]}`).
struct FaultModel: Decodable, Sendable, Equatable {
    let id: Int
    let name: String
    let tags: [String]
}

/// Whether the suite runs on FoundationNetworking's URLSession, which aborts the process on two
/// of the faults (swift-corelibs-foundation #5285).
#if AsyncHTTPClient
let runsOnFoundationNetworking = false
#else
#if canImport(FoundationNetworking)
let runsOnFoundationNetworking = true
#else
let runsOnFoundationNetworking = false
#endif
#endif

/// The faults the suite's transport survives: on Linux URLSession, all but the status line then
/// EOF and the chunked body with a trailer, which abort the process in FoundationNetworking
/// ("Transfer completed, but there's no response.", swift-corelibs-foundation #5285).
/// The faults that end at once; the ones that last until the deadline or take a large budget
/// (stalled, trickled, endless, gzip bomb) are pinned one by one in `TransportBoundaryTests`.
let survivableFaults: [FaultServer.Fault] = FaultServer.Fault.allCases.filter { fault in
    !FaultServer.Fault.timedOrHuge.contains(fault)
        && (!runsOnFoundationNetworking || (fault != .statusLineThenEOF && fault != .chunkedTrailer))
}

extension FaultServer.Fault {
    static let timedOrHuge: Set<FaultServer.Fault> = [
        .stalledBody, .headOnly, .lateBody, .trickledBody, .lyingLength, .endlessEarlyHints, .slowHeaders, .gzipBomb,
        .smallGzipBomb, .gzipMebibyte, .gigabyte,
    ]
}

extension FaultServer {
    /// A GET of `fault`, decoded as ``FaultModel``.
    func request(_ fault: Fault, configuration: NetworkConfiguration, timeout: TimeInterval = 10)
        -> TestRequest<FaultModel>
    {
        request(path: "/fault/\(fault.rawValue)", configuration: configuration, timeout: timeout)
    }

    /// A GET of `path` on this server, decoded as ``FaultModel``.
    func request(path: String, configuration: NetworkConfiguration, timeout: TimeInterval = 10)
        -> TestRequest<FaultModel>
    {
        let base = baseURL
        return TestRequest<FaultModel>(configuration: configuration) {
            ServerRequest(method: .get, baseUrl: base, relativeUrl: path, timeout: timeout)
        }
    }
}

/// The outcome of one request as the test sees it.
func outcome(of request: TestRequest<FaultModel>) async throws -> Result<FaultModel, BaseServerError> {
    try await withTimeout(60, "a fault request") {
        switch await request.perform().result {
        case .success(let model): return .success(model)
        case .failure(let error as BaseServerError): return .failure(error)
        case .failure(let error): throw UntypedError(error: "\(error)")
        }
    }
}

/// An error that is not a ``BaseServerError`` reached `onError`.
struct UntypedError: Error, CustomStringConvertible {
    let error: String
    var description: String { "untyped error: \(error)" }
}
