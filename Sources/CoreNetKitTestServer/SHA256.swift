//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A self-contained SHA-256 (FIPS 180-4) implementation, used by the test server to fingerprint
/// uploads and downloads and by tests to hash files on the client side.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(Data("abc".utf8))
/// hasher.finalizeHex() // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
public struct SHA256: Sendable {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var pending: [UInt8] = []
    private var totalBytes: UInt64 = 0

    /// Creates a hasher with the initial SHA-256 state.
    public init() {
        self.pending.reserveCapacity(64)
    }

    /// Returns the lowercase hex SHA-256 digest of `data`.
    public static func hex(_ data: some Sequence<UInt8>) -> String {
        var hasher = SHA256()
        let handled: Void? = data.withContiguousStorageIfAvailable { hasher.update(UnsafeRawBufferPointer($0)) }
        if handled == nil {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(65536)
            for byte in data {
                chunk.append(byte)
                if chunk.count == 65536 {
                    chunk.withUnsafeBytes { hasher.update($0) }
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            chunk.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finalizeHex()
    }

    /// Feeds `data` into the hash.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { self.update($0) }
    }

    /// Feeds the bytes in `bytes` into the hash.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        self.totalBytes &+= UInt64(remaining)
        if !self.pending.isEmpty {
            let take = min(64 - self.pending.count, remaining)
            self.pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            base += take
            remaining -= take
            if self.pending.count == 64 {
                let block = self.pending
                block.withUnsafeBytes { self.compress($0.baseAddress!, blocks: 1) }
                self.pending.removeAll(keepingCapacity: true)
            }
        }
        let blocks = remaining / 64
        if blocks > 0 {
            self.compress(base, blocks: blocks)
            base += blocks * 64
            remaining -= blocks * 64
        }
        if remaining > 0 {
            self.pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: remaining))
        }
    }

    /// Returns the lowercase hex digest of everything fed so far. The hasher itself is unchanged.
    public func finalizeHex() -> String {
        var copy = self
        let bitLength = self.totalBytes &* 8
        var tail = copy.pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        tail.withUnsafeBytes { copy.compress($0.baseAddress!, blocks: $0.count / 64) }
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for word in copy.state {
            for shift in stride(from: 28, through: 0, by: -4) {
                out.append(Self.hexDigits[Int((word >> UInt32(shift)) & 0xf)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Processes `blocks` consecutive 64-byte blocks starting at `start`. Written with raw
    /// pointers and `while` loops so it stays reasonably fast in unoptimised (debug) builds too.
    private mutating func compress(_ start: UnsafeRawPointer, blocks: Int) {
        let bytes = start.assumingMemoryBound(to: UInt8.self)
        self.state.withUnsafeMutableBufferPointer { hashBuffer in
            Self.roundConstants.withUnsafeBufferPointer { kBuffer in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { wBuffer in
                    Self.compressBlocks(
                        hash: hashBuffer.baseAddress!,
                        k: kBuffer.baseAddress!,
                        w: wBuffer.baseAddress!,
                        bytes: bytes,
                        blocks: blocks
                    )
                }
            }
        }
    }

    /// The compression function over raw pointers (`&>>`/`&<<` avoid overshift checks in debug builds).
    private static func compressBlocks(
        hash: UnsafeMutablePointer<UInt32>,
        k: UnsafePointer<UInt32>,
        w: UnsafeMutablePointer<UInt32>,
        bytes: UnsafePointer<UInt8>,
        blocks: Int
    ) {
        var h0 = hash[0]
        var h1 = hash[1]
        var h2 = hash[2]
        var h3 = hash[3]
        var h4 = hash[4]
        var h5 = hash[5]
        var h6 = hash[6]
        var h7 = hash[7]
        var block = bytes
        var remaining = blocks
        while remaining > 0 {
            var t = 0
            while t < 16 {
                let p = block + t &* 4
                w[t] = UInt32(p[0]) &<< 24 | UInt32(p[1]) &<< 16 | UInt32(p[2]) &<< 8 | UInt32(p[3])
                t &+= 1
            }
            while t < 64 {
                let x = w[t &- 15]
                let y = w[t &- 2]
                let s0 = ((x &>> 7) | (x &<< 25)) ^ ((x &>> 18) | (x &<< 14)) ^ (x &>> 3)
                let s1 = ((y &>> 17) | (y &<< 15)) ^ ((y &>> 19) | (y &<< 13)) ^ (y &>> 10)
                w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
                t &+= 1
            }
            var a = h0
            var b = h1
            var c = h2
            var d = h3
            var e = h4
            var f = h5
            var g = h6
            var h = h7
            t = 0
            while t < 64 {
                let sigma1 = ((e &>> 6) | (e &<< 26)) ^ ((e &>> 11) | (e &<< 21)) ^ ((e &>> 25) | (e &<< 7))
                let choice = (e & f) ^ (~e & g)
                let t1 = h &+ sigma1 &+ choice &+ k[t] &+ w[t]
                let sigma0 = ((a &>> 2) | (a &<< 30)) ^ ((a &>> 13) | (a &<< 19)) ^ ((a &>> 22) | (a &<< 10))
                let majority = (a & b) ^ (a & c) ^ (b & c)
                h = g
                g = f
                f = e
                e = d &+ t1
                d = c
                c = b
                b = a
                a = t1 &+ sigma0 &+ majority
                t &+= 1
            }
            h0 &+= a
            h1 &+= b
            h2 &+= c
            h3 &+= d
            h4 &+= e
            h5 &+= f
            h6 &+= g
            h7 &+= h
            block += 64
            remaining &-= 1
        }
        hash[0] = h0
        hash[1] = h1
        hash[2] = h2
        hash[3] = h3
        hash[4] = h4
        hash[5] = h5
        hash[6] = h6
        hash[7] = h7
    }
}
