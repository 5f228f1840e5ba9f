//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import SwiftASN1
import X509

/// A server's certificate chain (leaf first, DER) and its private key.
public struct TestIdentity: Sendable {
    /// The chain the server presents, leaf first.
    public let certificateChain: [Data]
    /// The leaf's private key, PKCS#8 PEM.
    public let privateKeyPEM: String

    /// The leaf certificate, DER.
    public var leaf: Data { certificateChain[0] }
}

/// Certificates made at test time with swift-certificates (P-256), never written to the
/// repository: a test CA and the identities a TLS ``TestServer`` can present.
///
/// Every leaf names `localhost` and `127.0.0.1` unless it says otherwise. ``shared`` is made once
/// per process, so every suite trusts the same CA.
public struct TestCertificates: Sendable {
    /// The test certificate authority (self-signed, DER): trust it to trust ``valid``.
    public let authority: Data
    /// A second authority nobody trusts (DER); ``untrusted`` is issued by it.
    public let rogueAuthority: Data
    /// Issued by ``authority`` for `localhost` and `127.0.0.1`, valid now.
    public let valid: TestIdentity
    /// Issued by ``authority``, expired yesterday.
    public let expired: TestIdentity
    /// Issued by ``authority`` for `other.invalid` only: a name mismatch on 127.0.0.1.
    public let otherName: TestIdentity
    /// Issued by ``rogueAuthority``: an unknown CA.
    public let untrusted: TestIdentity
    /// Signed by its own key (issuer = subject), for `localhost` and `127.0.0.1`.
    public let selfSigned: TestIdentity

    /// The process's certificates, made on first use.
    public static let shared: TestCertificates = {
        do {
            return try TestCertificates()
        } catch {
            fatalError("could not make the test certificates: \(error)")
        }
    }()

    /// ``authority`` as PEM text.
    public var authorityPEM: String { Self.pem(authority) }

    /// Makes a new set.
    public init() throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("CoreNetKit Test CA") }
        let ca = try Self.authority(name: caName, key: caKey, now: now)
        let rogueKey = P256.Signing.PrivateKey()
        let rogueName = try DistinguishedName { CommonName("CoreNetKit Rogue CA") }
        let rogue = try Self.authority(name: rogueName, key: rogueKey, now: now)
        let loopback: [GeneralName] = [
            .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
        ]
        let day: TimeInterval = 86_400

        func leaf(
            _ name: String, names: [GeneralName], from: Date, until: Date, issuer: DistinguishedName,
            issuerKey: P256.Signing.PrivateKey?, chain: [Data]
        ) throws -> TestIdentity {
            let key = P256.Signing.PrivateKey()
            let subject = try DistinguishedName { CommonName(name) }
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: from, notValidAfter: until, issuer: issuerKey == nil ? subject : issuer,
                subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    // A self-signed certificate signs itself: without keyCertSign, BoringSSL does
                    // not count it as self-issued and will not take it as a trust anchor.
                    Critical(KeyUsage(digitalSignature: true, keyCertSign: issuerKey == nil))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(names)
                },
                issuerPrivateKey: .init(issuerKey ?? key))
            return TestIdentity(
                certificateChain: [try Self.der(certificate)] + chain, privateKeyPEM: key.pemRepresentation)
        }

        let caDER = try Self.der(ca)
        self.authority = caDER
        self.rogueAuthority = try Self.der(rogue)
        self.valid = try leaf(
            "localhost", names: loopback, from: now - day, until: now + 30 * day, issuer: caName, issuerKey: caKey,
            chain: [caDER])
        self.expired = try leaf(
            "localhost (expired)", names: loopback, from: now - 3 * day, until: now - day, issuer: caName,
            issuerKey: caKey, chain: [caDER])
        self.otherName = try leaf(
            "other.invalid", names: [.dnsName("other.invalid")], from: now - day, until: now + 30 * day,
            issuer: caName, issuerKey: caKey, chain: [caDER])
        self.untrusted = try leaf(
            "localhost (rogue)", names: loopback, from: now - day, until: now + 30 * day, issuer: rogueName,
            issuerKey: rogueKey, chain: [])
        self.selfSigned = try leaf(
            "localhost (self-signed)", names: loopback, from: now - day, until: now + 30 * day, issuer: caName,
            issuerKey: nil, chain: [])
    }

    /// `der` as a PEM `CERTIFICATE` block.
    public static func pem(_ der: Data) -> String {
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }

    private static func authority(name: DistinguishedName, key: P256.Signing.PrivateKey, now: Date) throws
        -> Certificate
    {
        try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now - 86_400, notValidAfter: now + 365 * 86_400, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(key))
    }

    private static func der(_ certificate: Certificate) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }
}
