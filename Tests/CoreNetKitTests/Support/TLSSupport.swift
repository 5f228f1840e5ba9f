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

#if AsyncHTTPClient
import AsyncHTTPClient
#endif

/// The certificates every HTTPS test uses, made once per process (never committed).
let testPKI = TestCertificates.shared

/// A transport of the kind under test (AsyncHTTPClient with the trait, URLSession without)
/// applying `policy`; with `http1Only`, AsyncHTTPClient offers only HTTP/1.1 in ALPN.
func trustTransport(_ policy: ServerTrustPolicy = ServerTrustPolicy(), http1Only: Bool = false) throws
    -> any Transport
{
    #if AsyncHTTPClient
    var configuration = AsyncHTTPClientTransport.defaultConfiguration()
    if http1Only { configuration.httpVersion = .http1Only }
    return try AsyncHTTPClientTransport(configuration: configuration, serverTrust: policy)
    #else
    _ = SystemTrustStore.holdsTestAuthority  // before the session's first TLS connection
    return try URLSessionTransport(serverTrust: policy)
    #endif
}

/// A policy that trusts the test CA for the loopback names, on top of the system's roots.
func trustingTestAuthority() throws -> ServerTrustPolicy {
    try ServerTrustPolicy().trusting(certificateAuthorities: [testPKI.authority], forHosts: ["127.0.0.1", "localhost"])
}

/// The policy under which the test CA's chains verify on the transport under test: the extra CA
/// on AsyncHTTPClient and Apple's URLSession; none on Linux's URLSession, which can only trust the
/// system's store (see ``SystemTrustStore``).
func verifyingPolicy() throws -> ServerTrustPolicy {
    #if AsyncHTTPClient || !canImport(FoundationNetworking)
    return try trustingTestAuthority()
    #else
    return ServerTrustPolicy()
    #endif
}

/// Whether the transport under test can verify the test CA's chains at all.
let canVerifyTestChain: Bool = {
    #if AsyncHTTPClient || !canImport(FoundationNetworking)
    return true
    #else
    return SystemTrustStore.holdsTestAuthority
    #endif
}()

/// URLSession on Linux trusts only the CA bundle libcurl reads (`/etc/ssl/certs/ca-certificates.crt`),
/// and the test CA is made at run time. `.ci/run` therefore runs the tests in a mount namespace of
/// their own where that path is a private, writable copy of the system's bundle, and names it in
/// `CORENETKIT_TEST_CA_BUNDLE`; the CA is appended to that copy once, before any HTTPS session
/// connects (libcurl reads the bundle when a session makes its first TLS connection). The
/// machine's trust store is never changed. Without the variable, tests that need a trusted chain
/// on Linux's URLSession are skipped, and say so.
enum SystemTrustStore {
    static let holdsTestAuthority: Bool = {
        #if canImport(FoundationNetworking)
        guard let path = ProcessInfo.processInfo.environment["CORENETKIT_TEST_CA_BUNDLE"],
            let handle = FileHandle(forWritingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        do {
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(("\n" + testPKI.authorityPEM).utf8))
            return true
        } catch {
            return false
        }
        #else
        return false
        #endif
    }()
}

/// `GET path` on `server` through `transport`, decoded as JSON; the context's one outcome.
func fetchJSON(
    _ path: String, on server: TestServer, through transport: any Transport, headers: [String: String] = [:],
    _ adjust: (inout NetworkConfiguration) -> Void = { _ in }
) async throws -> Result<JSON, any Error> {
    let configuration = testConfiguration(transport: transport, adjust)
    return try await withTimeout(30, "GET \(path)") {
        await TestRequest<JSON>(configuration: configuration) { server.get(path, headers: headers) }.perform().result
    }
}

extension Result {
    /// The failure as a ``BaseServerError``, if it is one.
    var serverError: BaseServerError? {
        if case .failure(let error) = self { return error as? BaseServerError }
        return nil
    }
}
