//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Which server certificates a transport accepts for which hosts beyond the system's trust store: extra
/// certificate authorities (an enterprise or test CA) and pins.
///
/// Hosts without a rule are verified against the system's roots. Extra authorities are accepted *besides* the
/// system's roots. A pinned host's verified chain must contain one of its pins; anything else ends in
/// ``BaseServerError/Code-swift.struct/serverTrust`` before any byte of the request is sent. Hosts match by exact
/// name, case-insensitively; an IP address is a host of its own.
///
/// ```swift
/// let policy = try ServerTrustPolicy()
///     .trusting(certificateAuthorities: ServerTrustPolicy.certificates(fromPEM: companyCA), forHosts: ["intranet.example.com"])
///     .pinning([.publicKey(sha256Base64: "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")], forHosts: ["api.example.com"])
/// let transport = try AsyncHTTPClientTransport(serverTrust: policy)
/// ```
///
/// What is supported depends on the transport (unsupported rules throw when the transport is created):
/// - `AsyncHTTPClientTransport`: extra authorities, and pins of self-signed certificates (a root CA or self-signed
///   leaf), which become the host's only trust anchors. No public-key or other pins: AsyncHTTPClient 1.37 gives
///   no access to the peer's chain.
/// - ``URLSessionTransport`` on Apple platforms: everything, through the server trust challenge.
/// - ``URLSessionTransport`` on Linux: nothing, as libcurl has no trust challenge and reads only the system's CA
///   bundle; a non-empty policy throws rather than silently not pin.
public struct ServerTrustPolicy: Sendable, Equatable {
    /// What one host accepts.
    public struct Rule: Sendable, Equatable {
        /// DER certificates of authorities trusted for the host besides the system's roots.
        public var certificateAuthorities: [Data] = []
        /// The pins; when not empty, the chain must contain at least one of them.
        public var pins: [CertificatePin] = []
    }

    /// The rules by host name, lowercased.
    public private(set) var rules: [String: Rule] = [:]

    /// Creates a policy with no rules: every host is verified against the system's roots.
    public init() {}

    /// Whether no host has a rule.
    public var isEmpty: Bool { rules.isEmpty }

    /// The rule for `host`, if any.
    public func rule(forHost host: String) -> Rule? {
        rules.isEmpty ? nil : rules[host.lowercased()]
    }

    /// The policy with `certificateAuthorities` (DER) trusted for `hosts` in addition to the system's roots.
    ///
    /// - Throws: A ``BaseServerError/Code-swift.struct/serverTrust`` error if an element isn't DER or `hosts` is empty.
    public func trusting(certificateAuthorities: [Data], forHosts hosts: [String]) throws -> ServerTrustPolicy {
        for (index, der) in certificateAuthorities.enumerated() where CertificateDER(der) == nil {
            throw Self.invalid("certificate authority \(index + 1) is not a DER-encoded X.509 certificate")
        }
        return try adding(hosts) { $0.certificateAuthorities += certificateAuthorities }
    }

    /// The policy with `pins` required for `hosts`: a connection succeeds only if its chain contains one of them.
    ///
    /// - Throws: A ``BaseServerError/Code-swift.struct/serverTrust`` error if `pins` or `hosts` is empty.
    public func pinning(_ pins: [CertificatePin], forHosts hosts: [String]) throws -> ServerTrustPolicy {
        guard !pins.isEmpty else { throw Self.invalid("no pins were given for \(hosts.joined(separator: ", "))") }
        return try adding(hosts) { $0.pins += pins }
    }

    /// The DER bytes of every `CERTIFICATE` block in `pem`.
    ///
    /// - Throws: A ``BaseServerError/Code-swift.struct/serverTrust`` error when there is none or one is invalid.
    public static func certificates(fromPEM pem: String) throws -> [Data] {
        var result: [Data] = []
        var body: String?
        for line in pem.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if line == "-----END CERTIFICATE-----", let text = body {
                guard let der = Data(base64Encoded: text), CertificateDER(der) != nil else {
                    throw invalid("PEM block \(result.count + 1) is not a certificate")
                }
                result.append(der)
                body = nil
            } else if body != nil {
                body? += line
            }
        }
        guard !result.isEmpty else { throw invalid("the PEM text holds no CERTIFICATE block") }
        return result
    }

    private func adding(_ hosts: [String], _ change: (inout Rule) -> Void) throws -> ServerTrustPolicy {
        guard !hosts.isEmpty else { throw Self.invalid("no host was given") }
        var copy = self
        for host in hosts { change(&copy.rules[host.lowercased(), default: Rule()]) }
        return copy
    }

    static func invalid(_ reason: String) -> BaseServerError {
        BaseServerError(code: .serverTrust, message: "The server trust policy is invalid: \(reason).")
    }
}

/// One pin of a ``ServerTrustPolicy``: a certificate, or a certificate's public key, that a host's chain must contain.
public struct CertificatePin: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable {
        /// The exact DER bytes of a certificate.
        case certificate(Data)
        /// The lowercase hex SHA-256 of a `SubjectPublicKeyInfo`.
        case publicKeySHA256(String)
    }
    let kind: Kind

    /// Pins a certificate by its DER bytes: the chain must contain this very certificate.
    ///
    /// - Throws: A ``BaseServerError/Code-swift.struct/serverTrust`` error when `der` is not a DER certificate.
    public static func certificate(_ der: Data) throws -> CertificatePin {
        guard CertificateDER(der) != nil else {
            throw ServerTrustPolicy.invalid("a pinned certificate is not a DER-encoded X.509 certificate")
        }
        return CertificatePin(kind: .certificate(der))
    }

    /// Pins a public key by the base64 SHA-256 of its `SubjectPublicKeyInfo` (as in HPKP, OkHttp's `sha256/…` and
    /// `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`): any
    /// certificate in the chain with this key matches (keys outlive renewals).
    ///
    /// - Throws: A ``BaseServerError/Code-swift.struct/serverTrust`` error when the text is not base64 of 32 bytes.
    public static func publicKey(sha256Base64: String) throws -> CertificatePin {
        let text = sha256Base64.hasPrefix("sha256/") ? String(sha256Base64.dropFirst(7)) : sha256Base64
        guard let digest = Data(base64Encoded: text), digest.count == 32 else {
            throw ServerTrustPolicy.invalid("\"\(sha256Base64)\" is not the base64 of a SHA-256 digest")
        }
        return CertificatePin(kind: .publicKeySHA256(digest.map { String(format: "%02x", $0) }.joined()))
    }

    /// Pins the public key of the DER certificate `der` (see ``publicKey(sha256Base64:)``).
    ///
    /// - Throws: A ``BaseServerError/Code-swift.struct/serverTrust`` error when `der` is not a DER certificate.
    public static func publicKey(ofCertificate der: Data) throws -> CertificatePin {
        guard let certificate = CertificateDER(der) else {
            throw ServerTrustPolicy.invalid("a certificate to pin the key of is not a DER-encoded X.509 certificate")
        }
        return CertificatePin(kind: .publicKeySHA256(SHA256.hex(bytes: certificate.subjectPublicKeyInfo)))
    }

    func isContained(in chain: [Data]) -> Bool {
        switch kind {
        case .certificate(let der): return chain.contains(der)
        case .publicKeySHA256(let digest):
            return chain.contains { CertificateDER($0).map { SHA256.hex(bytes: $0.subjectPublicKeyInfo) } == digest }
        }
    }

    /// What is pinned, with its SHA-256, for messages and logs.
    public var description: String {
        switch kind {
        case .certificate(let der): return "certificate pin (SHA-256 \(SHA256.hex(bytes: [UInt8](der))))"
        case .publicKeySHA256(let digest): return "public key pin (SHA-256 \(digest))"
        }
    }
}

/// The issuer, subject and `SubjectPublicKeyInfo` of a DER X.509 certificate: only its outer structure (RFC 5280 §4.1).
struct CertificateDER: Sendable {
    let issuer: [UInt8]
    let subject: [UInt8]
    let subjectPublicKeyInfo: [UInt8]

    /// A root CA or self-signed certificate, usable as a trust anchor by itself.
    var isSelfIssued: Bool { issuer == subject }

    init?(_ der: Data) {
        let bytes = [UInt8](der)
        var reader = Reader(bytes: bytes, start: 0, end: bytes.count)
        guard let certificate = reader.element(tag: 0x30), reader.start == reader.end else { return nil }
        var outer = Reader(bytes: bytes, start: certificate.content.lowerBound, end: certificate.content.upperBound)
        guard let tbs = outer.element(tag: 0x30) else { return nil }
        var fields = Reader(bytes: bytes, start: tbs.content.lowerBound, end: tbs.content.upperBound)
        if fields.peek == 0xA0 { guard fields.element(tag: 0xA0) != nil else { return nil } }  // version
        guard fields.element(tag: 0x02) != nil,  // serialNumber
            fields.element(tag: 0x30) != nil,  // signature algorithm
            let issuer = fields.element(tag: 0x30),
            fields.element(tag: 0x30) != nil,  // validity
            let subject = fields.element(tag: 0x30),
            let key = fields.element(tag: 0x30)
        else { return nil }
        self.issuer = Array(bytes[issuer.whole])
        self.subject = Array(bytes[subject.whole])
        self.subjectPublicKeyInfo = Array(bytes[key.whole])
    }

    private struct Reader {
        let bytes: [UInt8]
        var start: Int
        let end: Int

        var peek: UInt8? { start < end ? bytes[start] : nil }

        /// The next element if its tag is `tag`: its whole encoding and its content.
        mutating func element(tag: UInt8) -> (whole: Range<Int>, content: Range<Int>)? {
            guard start + 2 <= end, bytes[start] == tag else { return nil }
            var index = start + 2
            var length = Int(bytes[start + 1])
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count > 0, count <= 4, index + count <= end else { return nil }
                length = 0
                for byte in bytes[index..<index + count] { length = length << 8 | Int(byte) }
                index += count
            }
            guard length <= end - index else { return nil }
            let whole = start..<(index + length)
            start = index + length
            return (whole, index..<(index + length))
        }
    }
}
