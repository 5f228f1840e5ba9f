//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOSSL

extension AsyncHTTPClientTransport {
    /// Creates a transport over a client of its own that applies `serverTrust` to its connections.
    ///
    /// Each host with a rule gets its own TLS configuration on its requests; AsyncHTTPClient pools connections per
    /// TLS configuration, so they are never shared with other hosts and HTTP/2 still multiplexes. BoringSSL
    /// verifies, host name included:
    /// - extra authorities are added to the system's roots (`additionalTrustRoots`);
    /// - pins become the host's *only* roots (`trustRoots`). BoringSSL accepts only self-signed anchors, so a pin
    ///   must be a root CA or a self-signed leaf whose key usage (if any) includes certificate signing.
    ///   AsyncHTTPClient 1.37 gives no access to the peer's chain (swift-server/async-http-client#285), so public-key
    ///   pins and pins of certificates signed by another cannot be enforced: they throw rather than silently not pin.
    ///
    /// - Parameters:
    ///   - configuration: The client's configuration; its `tlsConfiguration` (or the default) is every host's base.
    ///   - serverTrust: The extra trust and pins per host.
    ///   - bodyBufferLimit: See ``init(configuration:bodyBufferLimit:)``.
    /// - Throws: A ``BaseServerError/Code-swift.struct/serverTrust`` error for a pin this transport cannot enforce, or
    ///   a certificate BoringSSL cannot read.
    public convenience init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration(),
        serverTrust: ServerTrustPolicy,
        bodyBufferLimit: Int = 1 << 20
    ) throws {
        let base = configuration.tlsConfiguration ?? TLSConfiguration.makeClientConfiguration()
        var byHost: [String: TLSConfiguration] = [:]
        for (host, rule) in serverTrust.rules {
            byHost[host] = try Self.tlsConfiguration(base: base, host: host, rule: rule)
        }
        self.init(configuration: configuration, trustByHost: byHost, bodyBufferLimit: bodyBufferLimit)
    }

    static func tlsConfiguration(base: TLSConfiguration, host: String, rule: ServerTrustPolicy.Rule) throws
        -> TLSConfiguration
    {
        var tls = base
        tls.certificateVerification = .fullVerification
        if rule.pins.isEmpty {
            tls.additionalTrustRoots += [.certificates(try rule.certificateAuthorities.map(Self.certificate))]
            return tls
        }
        var anchors: [NIOSSLCertificate] = []
        for pin in rule.pins {
            guard case .certificate(let der) = pin.kind else {
                throw ServerTrustPolicy.invalid(
                    "AsyncHTTPClientTransport cannot enforce the \(pin) for \(host): AsyncHTTPClient gives no access "
                        + "to the server's certificate chain; pin a self-signed certificate (a root CA) instead")
            }
            guard CertificateDER(der)?.isSelfIssued == true else {
                throw ServerTrustPolicy.invalid(
                    "AsyncHTTPClientTransport cannot enforce the \(pin) for \(host): only a self-signed certificate "
                        + "(a root CA or a self-signed server certificate) can be pinned with AsyncHTTPClient")
            }
            anchors.append(try certificate(der))
        }
        tls.trustRoots = .certificates(anchors)
        tls.additionalTrustRoots = []
        return tls
    }

    private static func certificate(_ der: Data) throws -> NIOSSLCertificate {
        do {
            return try NIOSSLCertificate(bytes: [UInt8](der), format: .der)
        } catch {
            throw ServerTrustPolicy.invalid("BoringSSL cannot read a certificate (\(error))")
        }
    }

    /// A TLS failure refusing the server's certificate as a `URLError` that maps to `serverTrust`; else `nil`.
    static func trustFailure(_ error: any Error, url: URL) -> URLError? {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return ServerTrustFailure.error(
                .serverCertificateUntrusted, url: url,
                reason: "it was issued for another host name", underlying: error)
        }
        guard let error = error as? NIOSSLError, case .handshakeFailed(let detail) = error else { return nil }
        let text = "\(detail)"
        guard text.contains("CERTIFICATE_VERIFY_FAILED") else { return nil }
        let lowered = text.lowercased()
        if lowered.contains("expired") {
            return ServerTrustFailure.error(
                .serverCertificateHasBadDate, url: url, reason: "it has expired", underlying: error)
        }
        // BoringSSL reports only CERTIFICATE_VERIFY_FAILED, so the message names every possible reason.
        return ServerTrustFailure.error(
            .serverCertificateUntrusted, url: url,
            reason: "BoringSSL could not verify it (an unknown or untrusted certificate authority, an expired or "
                + "not yet valid certificate, or no pinned certificate in the chain)",
            underlying: error)
    }
}
#endif
