//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The issuer, subject and `SubjectPublicKeyInfo` bytes of a DER X.509 certificate. Only the outer structure is
/// read (RFC 5280 §4.1): the shape of a certificate, not its validity, which the TLS stack verifies.
struct CertificateDER: Sendable {
    let issuer: [UInt8]
    let subject: [UInt8]
    let subjectPublicKeyInfo: [UInt8]

    /// Whether issuer equals subject (a root CA or self-signed certificate, usable as a trust anchor by itself).
    var isSelfIssued: Bool { issuer == subject }

    /// Reads `der`; `nil` when it is not a DER certificate.
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

    /// A cursor over DER elements between `start` and `end`.
    private struct Reader {
        let bytes: [UInt8]
        var start: Int
        let end: Int

        var peek: UInt8? { start < end ? bytes[start] : nil }

        /// Reads the next element if its tag is `tag`: its whole encoding and its content.
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
