//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Writes all of `bytes` to the file `fd` from `offset`, in one system call when the kernel
/// takes them at once (`pwrite`, retried after an interrupt or a short write).
///
/// - Returns: `0`, or the `errno` of the write that failed.
func writeAll(_ bytes: [UInt8], to fd: Int32, at offset: Int) -> Int32 {
    bytes.withUnsafeBytes { buffer -> Int32 in
        guard let base = buffer.baseAddress else { return 0 }
        var written = 0
        while written < buffer.count {
            let count = pwrite(fd, base + written, buffer.count - written, off_t(offset + written))
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += count
        }
        return 0
    }
}
