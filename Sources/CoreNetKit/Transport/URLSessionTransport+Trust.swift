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
    /// On Apple platforms each trust challenge of a host with a rule is evaluated with the system's roots plus the
    /// rule's authorities, then the chain must contain one of its pins. A refused certificate cancels the connection
    /// before the request is sent, ending in ``BaseServerError/Code-swift.struct/serverTrust``.
    ///
    /// On Linux libcurl never asks the delegate about trust, exposes no peer certificate and reads only the system
    /// CA bundle (`URLSessionCertificateAuthorityInfoFile` is Android-only), so a policy with any rule throws: use
    /// `AsyncHTTPClientTransport`, or add the CA to the system store (`update-ca-certificates`). An empty policy is
    /// accepted everywhere.
    ///
    /// Other parameters are as in ``init(configuration:maximumConnectionsPerHost:bodyBufferLimit:)``.
    /// - Throws: A ``BaseServerError/Code-swift.struct/serverTrust`` error on Linux when `serverTrust` has a rule.
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
    /// System evaluation with the rule's authorities as extra anchors, then the pins; when refused, the reason.
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
