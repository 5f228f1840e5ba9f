//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Dispatch
import Foundation
import Testing

@testable import CoreNetKit

/// HTTPS against the TLS loopback server through the transport under test (URLSession, or
/// AsyncHTTPClient with the trait): what a trusted chain, an unknown CA, an expired certificate
/// and a name mismatch end in. On Linux's URLSession the trusted chain needs the test CA in the
/// CA bundle libcurl reads: see ``SystemTrustStore``.
@Suite(.timeLimit(.minutes(3))) struct ServerTrustTests {
    @Test(.enabled(if: canVerifyTestChain, "URLSession on Linux needs the test CA in libcurl's CA bundle (.ci/run)"))
    func validChainSucceedsOverHTTP1() async throws {
        try await withTLSTestServer(testPKI.valid, http2: false) { server in
            let transport = try trustTransport(try verifyingPolicy())

            let result = try await fetchJSON("/users/1", on: server, through: transport)

            #expect(throws: Never.self) { try result.get() }
            #expect(server.hits("GET", "/users/1") == 1)
            #expect(server.connectionCounts() == ConnectionCounts(accepted: 1, http2: 0, http1: 1))
        }
    }

    /// Both transports offer h2 in ALPN: AsyncHTTPClient by default, and URLSession on Linux
    /// because libcurl asks for HTTP/2 over TLS by default (FoundationNetworking sets no version).
    @Test(.enabled(if: canVerifyTestChain, "URLSession on Linux needs the test CA in libcurl's CA bundle (.ci/run)"))
    func validChainSucceedsOverHTTP2WhenTheServerOffersIt() async throws {
        try await withTLSTestServer(testPKI.valid) { server in
            let transport = try trustTransport(try verifyingPolicy())

            let result = try await fetchJSON("/users/1", on: server, through: transport)

            #expect(throws: Never.self) { try result.get() }
            #if AsyncHTTPClient || canImport(FoundationNetworking)
            #expect(server.connectionCounts() == ConnectionCounts(accepted: 1, http2: 1, http1: 0))
            #endif
        }
    }

    @Test func unknownAuthorityEndsInServerTrustNamingTheHost() async throws {
        try await withTLSTestServer(testPKI.untrusted) { server in
            let transport = try trustTransport(try verifyingPolicy())

            let error = try await fetchJSON("/users/1", on: server, through: transport).serverError

            #expect(error?.code == .serverTrust)
            #expect(error?.message?.contains("127.0.0.1") == true, "\(String(describing: error))")
            #expect(server.totalHits() == 0)
        }
    }

    @Test func expiredLeafEndsInServerTrust() async throws {
        try await withTLSTestServer(testPKI.expired) { server in
            let transport = try trustTransport(try verifyingPolicy())

            let error = try await fetchJSON("/users/1", on: server, through: transport).serverError

            #expect(error?.code == .serverTrust)
            #expect(error?.message?.contains("127.0.0.1") == true, "\(String(describing: error))")
            #if AsyncHTTPClient
            // BoringSSL says only CERTIFICATE_VERIFY_FAILED; the message lists expiry among the causes.
            #expect(error?.message?.contains("expired") == true, "\(String(describing: error))")
            #else
            if canVerifyTestChain {  // otherwise the unknown CA is the reason libcurl gives first
                #expect(error?.message?.contains("it has expired") == true, "\(String(describing: error))")
            }
            #endif
            #expect(server.totalHits() == 0)
        }
    }

    @Test func certificateForAnotherNameEndsInServerTrust() async throws {
        try await withTLSTestServer(testPKI.otherName) { server in
            let transport = try trustTransport(try verifyingPolicy())

            let error = try await fetchJSON("/users/1", on: server, through: transport).serverError

            #expect(error?.code == .serverTrust)
            if canVerifyTestChain {
                #expect(error?.message?.contains("host name") == true, "\(String(describing: error))")
            }
            #expect(server.totalHits() == 0)
        }
    }

    @Test func selfSignedLeafEndsInServerTrust() async throws {
        try await withTLSTestServer(testPKI.selfSigned) { server in
            let transport = try trustTransport(try verifyingPolicy())

            let error = try await fetchJSON("/users/1", on: server, through: transport).serverError

            #expect(error?.code == .serverTrust)
            #expect(error?.message?.contains("127.0.0.1") == true, "\(String(describing: error))")
            #expect(server.totalHits() == 0)
        }
    }

    @Test func refusedCertificateSendsNoTokenAndIsNeverRetried() async throws {
        try await withTLSTestServer(testPKI.untrusted) { server in
            let transport = try trustTransport(try verifyingPolicy())
            let queue = DispatchQueue(label: "tests.trust.auth")
            let manager = AccessSafeRequestManager()
            manager.configure(
                store: InMemoryTokenStore(AuthTokens(accessToken: "token-1", refreshToken: "refresh-1")),
                refresher: ClosureTokenRefresher { _ in throw BaseServerError(code: .tokenRefreshFailed) },
                options: AccessSafeRequestManager.Options(callbackQueue: queue))
            let everything: Set<BaseServerError.Code> = [
                .serverTrust, .transport, .cannotConnect, .connectionLost, .timeout,
            ]

            let error = try await fetchJSON(
                "/protected/trust", on: server, through: transport, headers: ["X-Api-Key": "secret"]
            ) {
                $0.accessManager = manager
                $0.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .zero, retryableErrors: everything)
            }.serverError

            #expect(error?.code == .serverTrust)
            #expect(server.totalHits() == 0)  // no request line, no header, no token reached it
            #expect(server.connectionCounts().accepted == 1)  // one handshake, no retry
            #expect(server.auth.tokensSeen().isEmpty)  // no token was ever presented
        }
    }
}

/// The per-host trust settings through the transport under test: extra CAs and pins, or on
/// Linux's URLSession, the refusal to take them.
@Suite(.timeLimit(.minutes(3))) struct CustomServerTrustTests {
    #if AsyncHTTPClient || !canImport(FoundationNetworking)
    @Test func extraTrustedAuthorityIsAcceptedForItsHost() async throws {
        try await withTLSTestServer(testPKI.valid) { server in
            let transport = try trustTransport(try trustingTestAuthority())

            let result = try await fetchJSON("/users/1", on: server, through: transport)

            #expect(throws: Never.self) { try result.get() }
        }
    }

    @Test func extraAuthorityOfAnotherHostDoesNotApply() async throws {
        try await withTLSTestServer(testPKI.valid) { server in
            let policy = try ServerTrustPolicy().trusting(
                certificateAuthorities: [testPKI.authority], forHosts: ["intranet.example.com"])
            let transport = try trustTransport(policy)

            let error = try await fetchJSON("/users/1", on: server, through: transport).serverError

            #expect(error?.code == .serverTrust)
        }
    }

    @Test func correctPinSucceeds() async throws {
        try await withTLSTestServer(testPKI.valid) { server in
            let policy = try ServerTrustPolicy().pinning([.certificate(testPKI.authority)], forHosts: ["127.0.0.1"])
            let transport = try trustTransport(policy)

            let result = try await fetchJSON("/users/1", on: server, through: transport)

            #expect(throws: Never.self) { try result.get() }
        }
    }

    @Test func pinnedSelfSignedServerCertificateSucceeds() async throws {
        try await withTLSTestServer(testPKI.selfSigned) { server in
            let policy = try ServerTrustPolicy().pinning(
                [.certificate(testPKI.selfSigned.leaf)], forHosts: ["127.0.0.1"])
            let transport = try trustTransport(policy)

            let result = try await fetchJSON("/users/1", on: server, through: transport)

            #expect(throws: Never.self) { try result.get() }
        }
    }

    @Test func wrongPinFailsWithServerTrustEvenForATrustedChain() async throws {
        try await withTLSTestServer(testPKI.valid) { server in
            let policy = try trustingTestAuthority()
                .pinning([.certificate(testPKI.rogueAuthority)], forHosts: ["127.0.0.1"])
            let transport = try trustTransport(policy)

            let error = try await fetchJSON("/users/1", on: server, through: transport).serverError

            #expect(error?.code == .serverTrust)
            #expect(server.totalHits() == 0)
        }
    }
    #endif

    #if AsyncHTTPClient
    @Test func publicKeyPinIsRefusedWhenTheTransportIsCreated() throws {
        let policy = try ServerTrustPolicy().pinning(
            [.publicKey(ofCertificate: testPKI.valid.leaf)], forHosts: ["127.0.0.1"])

        #expect { _ = try trustTransport(policy) } throws: { ($0 as? BaseServerError)?.code == .serverTrust }
    }

    @Test func pinOfACertificateSignedByACAIsRefusedWhenTheTransportIsCreated() throws {
        let policy = try ServerTrustPolicy().pinning([.certificate(testPKI.valid.leaf)], forHosts: ["127.0.0.1"])

        #expect { _ = try trustTransport(policy) } throws: { ($0 as? BaseServerError)?.code == .serverTrust }
    }
    #elseif canImport(FoundationNetworking)
    @Test func anyRuleIsRefusedWhenTheTransportIsCreatedOnLinux() throws {
        let pinned = try ServerTrustPolicy().pinning([.certificate(testPKI.authority)], forHosts: ["127.0.0.1"])
        let trusted = try trustingTestAuthority()

        for policy in [pinned, trusted] {
            #expect {
                _ = try URLSessionTransport(serverTrust: policy)
            } throws: { error in
                let error = error as? BaseServerError
                return error?.code == .serverTrust && error?.message?.contains("Linux") == true
            }
        }
        #expect(throws: Never.self) { _ = try URLSessionTransport(serverTrust: ServerTrustPolicy()) }
    }
    #endif
}
