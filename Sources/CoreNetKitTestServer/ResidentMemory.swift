//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// This process's resident memory, from /proc (Linux): for the tests' and the benchmarks' memory
/// bounds.
public enum ResidentMemory {
    /// Resets the kernel's peak-RSS mark to the current RSS and returns the current RSS, in bytes.
    public static func resetPeak() -> Int {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return field("VmRSS")
    }

    /// The peak RSS since the last reset, in bytes.
    public static func peak() -> Int { field("VmHWM") }

    /// A `/proc/self/status` field (`VmRSS`, `VmHWM`, …), in bytes.
    public static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return digits * 1024
        }
        return 0
    }
}
