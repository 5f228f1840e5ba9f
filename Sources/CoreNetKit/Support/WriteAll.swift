//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Writes all of `bytes` to `fd` at `offset` with `pwrite`, retried after an interrupt or short write.
/// Returns `0`, or the `errno` of the failed write.
func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int) -> Int32 {
    guard let base = bytes.baseAddress else { return 0 }
    var written = 0
    while written < bytes.count {
        let count = pwrite(fd, base + written, bytes.count - written, off_t(offset + written))
        if count < 0 {
            if errno == EINTR { continue }
            return errno
        }
        written += count
    }
    return 0
}
