//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Crypto

/// The server's hashes come from swift-crypto, the implementation the tests trust; the
/// CoreNetKit library keeps its own small SHA-256 (it takes no dependency), and the tests check
/// that one against swift-crypto.
extension Crypto.SHA256.Digest {
    /// The digest as lowercase hex, as the `X-SHA256` header and the upload reports carry it.
    public var hex: String {
        var text = ""
        text.reserveCapacity(Self.byteCount * 2)
        for byte in self {
            text.append(Character(Unicode.Scalar(Self.hexDigits[Int(byte >> 4)])))
            text.append(Character(Unicode.Scalar(Self.hexDigits[Int(byte & 0x0F)])))
        }
        return text
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
