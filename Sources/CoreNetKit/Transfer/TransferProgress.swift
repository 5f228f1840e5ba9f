//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

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

/// Decides which raw progress callbacks to deliver (pure state, time passed in): a value passes when it moves
/// forward and the interval has passed or it completes, so handlers see a monotonic series of at most
/// `1 / interval` values a second, plus the closing `1.0` from ``finish()``.
struct ProgressThrottle<Instant: InstantProtocol> where Instant.Duration == Swift.Duration {
    let interval: Duration = .milliseconds(1000) / 30
    private(set) var last: TransferProgress?
    private var lastTime: Instant?
    private var total: Int64?

    /// The value to deliver for `completed` of `expected` bytes (< 0 unknown), or `nil` to drop it.
    mutating func offer(completed: Int64, expected: Int64, now: Instant) -> TransferProgress? {
        let total: Int64? = expected >= 0 ? max(expected, completed) : nil
        if total != nil { self.total = total }
        let progress = TransferProgress(completedBytes: completed, totalBytes: total)
        if let last {
            guard progress.completedBytes > last.completedBytes, progress.fraction >= last.fraction else { return nil }
            if !progress.isFinished, let lastTime, lastTime.duration(to: now) < interval { return nil }
        }
        last = progress
        lastTime = now
        return progress
    }

    /// The closing `1.0` value, or `nil` when it was already delivered.
    mutating func finish() -> TransferProgress? {
        if let last, last.isFinished { return nil }
        let completed = max(last?.completedBytes ?? 0, total ?? 0)
        let progress = TransferProgress(completedBytes: completed, totalBytes: completed)
        last = progress
        return progress
    }
}

/// A wall-clock reading as an instant, so progress is throttled on the configuration's clock.
struct WallInstant: InstantProtocol {
    let seconds: Double

    init(_ date: Date) { seconds = date.timeIntervalSinceReferenceDate }
    private init(seconds: Double) { self.seconds = seconds }

    func advanced(by duration: Duration) -> WallInstant { WallInstant(seconds: seconds + duration.timeInterval) }
    func duration(to other: WallInstant) -> Duration { .milliseconds(Int64((other.seconds - seconds) * 1000)) }
    static func < (lhs: WallInstant, rhs: WallInstant) -> Bool { lhs.seconds < rhs.seconds }
}
