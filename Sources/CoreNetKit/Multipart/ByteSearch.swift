//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Finds a byte pattern in data, with `memchr` and `memcmp`.
enum ByteSearch {
    /// Whether `pattern` occurs in `data`.
    static func contains(_ pattern: [UInt8], in data: Data) -> Bool {
        guard !pattern.isEmpty, data.count >= pattern.count else { return false }
        return data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return false }
            return pattern.withUnsafeBytes { needle in
                let first = Int32(needle[0])
                let lastStart = buffer.count - needle.count
                var position = 0
                while position <= lastStart {
                    guard let hit = memchr(base + position, first, lastStart - position + 1) else { return false }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, needle.baseAddress!, needle.count) == 0 { return true }
                    position = index + 1
                }
                return false
            }
        }
    }

    /// Looks for a pattern in a stream of chunks, including across chunk edges.
    struct Scanner {
        private let pattern: [UInt8]
        private var tail: [UInt8] = []

        init(_ pattern: [UInt8]) { self.pattern = pattern }

        /// Whether the pattern occurs in everything fed so far, ending in `chunk`.
        mutating func feed(_ chunk: Data) -> Bool {
            guard !pattern.isEmpty else { return false }
            let keep = pattern.count - 1
            if !tail.isEmpty, ByteSearch.contains(pattern, in: Data(tail + chunk.prefix(keep))) { return true }
            if ByteSearch.contains(pattern, in: chunk) { return true }
            tail = chunk.count >= keep ? Array(chunk.suffix(keep)) : Array((tail + chunk).suffix(keep))
            return false
        }
    }
}
