//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// How far the body of a request or of its response has travelled, as ``RequestContext/onUploadProgress(_:)`` and
/// ``RequestContext/onDownloadProgress(_:)`` deliver it: values never go down, and a success ends with `1.0`.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes sent or received so far.
    public let completedBytes: Int64
    /// The bytes expected in all, or `nil` when unknown (a response without `Content-Length`).
    public let totalBytes: Int64?
    /// The share done, from `0.0` to `1.0`; `0.0` while ``totalBytes`` is unknown, until the end.
    public let fraction: Double

    /// Creates a progress value; `fraction` is derived and clamped to `0.0...1.0`.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        if let totalBytes, totalBytes > 0 {
            fraction = min(1, max(0, Double(completedBytes) / Double(totalBytes)))
        } else {
            fraction = totalBytes == 0 ? 1 : 0
        }
    }

    /// Whether the transfer is complete (``fraction`` is `1.0`).
    public var isFinished: Bool { fraction >= 1 }

    /// Nothing goes down and something goes up.
    func isAhead(of last: TransferProgress) -> Bool {
        completedBytes >= last.completedBytes && fraction >= last.fraction
            && (completedBytes > last.completedBytes || fraction > last.fraction)
    }

    public var description: String {
        let total = totalBytes.map(String.init) ?? "?"
        return "\(completedBytes)/\(total) bytes (\(Int((fraction * 100).rounded(.down)))%)"
    }
}

enum TransferDirection: Sendable {
    case upload, download
}
