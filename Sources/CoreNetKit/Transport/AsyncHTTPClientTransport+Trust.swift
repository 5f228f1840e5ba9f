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
    /// Creates a transport over a client of its own that applies `serverTrust` to its
    /// connections.
    ///
    /// Each host with a rule gets its own TLS configuration, set on its requests
    /// (`HTTPClientRequest.tlsConfiguration`); AsyncHTTPClient keeps a connection pool per TLS
    /// configuration, so its connections are never shared with other hosts' and HTTP/2 still
    /// multiplexes its requests on one connection. Verification stays BoringSSL's, with the
    /// host name checked:
    /// - extra authorities are added to the system's roots (`additionalTrustRoots`);
    /// - pins become the host's *only* roots (`trustRoots`), so a chain is accepted only if it
    ///   leads to a pinned certificate. BoringSSL accepts only self-signed anchors, so a pin must
    ///   be a self-signed certificate: a root CA, or a self-signed leaf whose key usage (if it
    ///   has one) includes certificate signing. AsyncHTTPClient 1.37
    ///   offers no verification callback and no access to the peer's chain
    ///   (swift-server/async-http-client#285), so a public-key pin, or a pin of a certificate
    ///   signed by another, cannot be enforced: they throw here rather than silently not pin.
    ///
    /// - Parameters:
    ///   - configuration: The client's configuration; its `tlsConfiguration` (or the default
    ///     client configuration) is the base every host's configuration starts from.
    ///   - serverTrust: The extra trust and pins per host.
    ///   - bodyBufferLimit: See ``init(configuration:bodyBufferLimit:)``.
    /// - Throws: ``BaseServerError`` with code ``BaseServerError/Code-swift.struct/serverTrust`` for a
    ///   pin this transport cannot enforce, or a certificate BoringSSL cannot read.
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

    /// `base` with `rule` applied for `host`.
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

    /// A TLS failure that means the server's certificate was refused, as the `URLError` the
    /// mapper turns into ``BaseServerError/Code-swift.struct/serverTrust``; `nil` for any other error.
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
        // BoringSSL reports only CERTIFICATE_VERIFY_FAILED: the reason (unknown CA, expiry, pin)
        // stays inside the handshake, so the message names every possibility.
        return ServerTrustFailure.error(
            .serverCertificateUntrusted, url: url,
            reason: "BoringSSL could not verify it (an unknown or untrusted certificate authority, an expired or "
                + "not yet valid certificate, or no pinned certificate in the chain)",
            underlying: error)
    }
}
#endif
