//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Crypto
import Foundation
import Testing

@testable import CoreNetKit

/// The trust policy as a value: building it, reading PEM, and matching pins against chains.
@Suite(.timeLimit(.minutes(3))) struct ServerTrustPolicyTests {
    @Test func pemTextYieldsTheDERCertificates() throws {
        let pem = "intro text\n" + testPKI.authorityPEM + "\n" + TestCertificates.pem(testPKI.valid.leaf)

        let certificates = try ServerTrustPolicy.certificates(fromPEM: pem)

        #expect(certificates == [testPKI.authority, testPKI.valid.leaf])
    }

    @Test func textWithoutACertificateIsRefused() {
        #expect {
            try ServerTrustPolicy.certificates(fromPEM: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----")
        } throws: { ($0 as? BaseServerError)?.code == .serverTrust }
        #expect { try CertificatePin.certificate(Data("not a certificate".utf8)) } throws: {
            ($0 as? BaseServerError)?.code == .serverTrust
        }
        #expect { try CertificatePin.publicKey(sha256Base64: "c2hvcnQ=") } throws: {
            ($0 as? BaseServerError)?.code == .serverTrust
        }
    }

    @Test func rulesMatchTheirHostsWithoutCase() throws {
        let policy = try ServerTrustPolicy().trusting(
            certificateAuthorities: [testPKI.authority], forHosts: ["API.Example.com"])

        #expect(policy.rule(forHost: "api.example.com")?.certificateAuthorities == [testPKI.authority])
        #expect(policy.rule(forHost: "www.example.com") == nil)
        #expect(ServerTrustPolicy().isEmpty)
    }

    @Test func publicKeyPinIsTheSHA256OfTheSubjectPublicKeyInfo() throws {
        let key = try P256.Signing.PrivateKey(pemRepresentation: testPKI.valid.privateKeyPEM)
        let digest = Data(Crypto.SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString()

        let fromText = try CertificatePin.publicKey(sha256Base64: "sha256/" + digest)
        let fromCertificate = try CertificatePin.publicKey(ofCertificate: testPKI.valid.leaf)

        #expect(fromText == fromCertificate)
        #expect(fromText.isContained(in: testPKI.valid.certificateChain))
        #expect(!fromText.isContained(in: testPKI.expired.certificateChain))
    }

    @Test func certificatePinMatchesOnlyAChainContainingIt() throws {
        let pin = try CertificatePin.certificate(testPKI.authority)

        #expect(pin.isContained(in: testPKI.valid.certificateChain))
        #expect(!pin.isContained(in: testPKI.untrusted.certificateChain))
    }

    @Test func selfIssuedIsToldFromIssuedCertificates() throws {
        #expect(CertificateDER(testPKI.authority)?.isSelfIssued == true)
        #expect(CertificateDER(testPKI.selfSigned.leaf)?.isSelfIssued == true)
        #expect(CertificateDER(testPKI.valid.leaf)?.isSelfIssued == false)
    }
}
