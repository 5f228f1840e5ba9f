//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#else
import Security
#endif

extension URLSessionTransport {
    /// Creates a transport over a new session that applies `serverTrust` to its connections.
    ///
    /// On Apple platforms the session's delegate answers each server trust challenge of a host
    /// with a rule: it evaluates the chain with the system's roots plus the rule's authorities,
    /// then requires one of its pins in the chain. A refused certificate cancels the connection
    /// before the request is sent, and the request ends in
    /// ``BaseServerError/Code-swift.struct/serverTrust``.
    ///
    /// On Linux, FoundationNetworking hands TLS to libcurl: it never asks the delegate about
    /// server trust, exposes no peer certificate, and reads only the system's CA bundle
    /// (`/etc/ssl/certs/ca-certificates.crt` on Debian and Ubuntu); `URLSessionCertificateAuthorityInfoFile`
    /// is read on Android only. So a policy with any rule throws here rather than silently not
    /// pin: use `AsyncHTTPClientTransport` (package trait `AsyncHTTPClient`), or add the CA to
    /// the system's store (`update-ca-certificates`). An empty policy is accepted everywhere.
    ///
    /// - Parameters:
    ///   - configuration: The session's configuration.
    ///   - maximumConnectionsPerHost: See ``init(configuration:maximumConnectionsPerHost:bodyBufferLimit:)``.
    ///   - bodyBufferLimit: See ``init(configuration:maximumConnectionsPerHost:bodyBufferLimit:)``.
    ///   - serverTrust: The extra trust and pins per host.
    /// - Throws: ``BaseServerError`` with code ``BaseServerError/Code-swift.struct/serverTrust`` on Linux
    ///   when `serverTrust` has a rule.
    public convenience init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(),
        maximumConnectionsPerHost: Int? = URLSessionTransport.defaultMaximumConnectionsPerHost,
        bodyBufferLimit: Int = 1 << 20,
        serverTrust: ServerTrustPolicy
    ) throws {
        #if canImport(FoundationNetworking)
        if let host = serverTrust.rules.keys.sorted().first {
            throw BaseServerError(
                code: .serverTrust,
                message:
                    "URLSessionTransport cannot apply the server trust policy for \(host) on Linux: FoundationNetworking "
                    + "(libcurl) offers no trust evaluation, no peer certificates and no per-session CA certificates. "
                    + "Use AsyncHTTPClientTransport, or add the CA to the system's trust store.")
        }
        #endif
        self.init(
            configuration: configuration, maximumConnectionsPerHost: maximumConnectionsPerHost,
            bodyBufferLimit: bodyBufferLimit, trust: serverTrust.isEmpty ? nil : serverTrust)
    }
}

#if !canImport(FoundationNetworking)
extension SessionDelegate {
    /// Answers a server trust challenge of a host that has `rule`: the system's evaluation with
    /// the rule's authorities as extra anchors, then the pins. Returns the disposition, the
    /// credential and, when refused, why in words.
    static func evaluate(_ challenge: URLAuthenticationChallenge, rule: ServerTrustPolicy.Rule) -> (
        URLSession.AuthChallengeDisposition, URLCredential?, String?
    ) {
        guard let trust = challenge.protectionSpace.serverTrust else {
            return (.cancelAuthenticationChallenge, nil, "the server presented no certificate")
        }
        if !rule.certificateAuthorities.isEmpty {
            let anchors = rule.certificateAuthorities.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
            SecTrustSetAnchorCertificates(trust, anchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, false)  // the system's roots stay trusted
        }
        var failure: CFError?
        guard SecTrustEvaluateWithError(trust, &failure) else {
            let reason = failure.map { CFErrorCopyDescription($0) as String } ?? "it could not be verified"
            return (.cancelAuthenticationChallenge, nil, reason)
        }
        if !rule.pins.isEmpty {
            let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate] ?? []).map {
                SecCertificateCopyData($0) as Data
            }
            guard rule.pins.contains(where: { $0.isContained(in: chain) }) else {
                return (
                    .cancelAuthenticationChallenge, nil, "its chain contains none of the pinned certificates or keys"
                )
            }
        }
        return (.useCredential, URLCredential(trust: trust), nil)
    }
}
#endif
