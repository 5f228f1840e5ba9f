//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AccessSafeRequestManager {
    /// How an ``AccessSafeRequestManager`` recognises a rejected token, sends tokens, and limits and times refreshes.
    /// Every property has a default; change only what differs.
    ///
    /// ```swift
    /// var options = AccessSafeRequestManager.Options()
    /// options.trigger = .bodyErrorCode(5)          // VK-style APIs
    /// options.maxRefreshes = 3
    /// ```
    public struct Options: Sendable {
        /// Which responses reject the access token; ``RefreshTrigger/status401`` by default.
        public var trigger: RefreshTrigger
        /// The header that carries the access token, `Authorization` by default.
        public var header: String
        /// The word before the token, `Bearer` by default; `nil` sends the token alone.
        public var scheme: String?
        /// At most this many refreshes run within ``refreshWindow`` (5 by default); one more is refused and its
        /// requests fail with ``BaseServerError/Code-swift.struct/excessiveRefresh``. `0` turns refreshing off.
        public var maxRefreshes: Int
        /// The window of ``maxRefreshes``, 30 seconds by default.
        public var refreshWindow: Duration
        /// A refresh that has not finished after this long (30 seconds by default, at most a day) counts as failed: it
        /// is cancelled and its requests fail with ``BaseServerError/Code-swift.struct/tokenRefreshFailed`` carrying a
        /// ``BaseServerError/Code-swift.struct/timeout``.
        public var refreshTimeout: Duration
        /// When the tokens' ``AuthTokens/expiresAt`` is known, a request that would go out this close to it (30 seconds
        /// by default) or later refreshes first.
        public var refreshBeforeExpiry: Duration
        /// Whether the refresher's error ends the session (running ``AccessSafeRequestManager/onSessionExpired(_:)``).
        /// By default all do but ``isConnectionProblemOrServerFault(_:)``: those keep the user signed in.
        public var isSessionExpired: @Sendable (any Error) -> Bool
        /// The queue ``AccessSafeRequestManager/onSessionExpired(_:)`` handlers run on, `.main` by default.
        public var callbackQueue: DispatchQueue
        /// The clock for ``refreshTimeout`` and, by its ``NetworkClock/currentDate``, ``refreshBeforeExpiry`` and
        /// ``refreshWindow``; ``SystemClock`` by default. Use the served configurations' ``NetworkConfiguration/clock``
        /// so one clock drives all (tests inject a ``ManualClock`` in both).
        public var clock: any NetworkClock
        /// The current time: ``clock``'s date. Setting it wraps ``clock`` to read its date from the closure (waits
        /// unchanged); setting ``clock`` afterwards replaces both.
        @available(*, deprecated, message: "set clock: the manager reads the time from it")
        public var now: @Sendable () -> Date {
            get { { [clock] in clock.currentDate } }
            set { clock = dated(clock, date: newValue) }
        }

        /// Creates options; every argument has the default described on its property.
        public init(
            trigger: RefreshTrigger = .status401,
            header: String = "Authorization",
            scheme: String? = "Bearer",
            maxRefreshes: Int = 5,
            refreshWindow: Duration = .seconds(30),
            refreshTimeout: Duration = .seconds(30),
            refreshBeforeExpiry: Duration = .seconds(30),
            isSessionExpired: @escaping @Sendable (any Error) -> Bool = {
                !Options.isConnectionProblemOrServerFault($0)
            },
            callbackQueue: DispatchQueue = .main,
            clock: any NetworkClock = SystemClock()
        ) {
            self.trigger = trigger
            self.header = header
            self.scheme = scheme
            self.maxRefreshes = maxRefreshes
            self.refreshWindow = refreshWindow
            self.refreshTimeout = refreshTimeout
            self.refreshBeforeExpiry = refreshBeforeExpiry
            self.isSessionExpired = isSessionExpired
            self.callbackQueue = callbackQueue
            self.clock = clock
        }

        /// Creates options that read the time from `now` instead of `clock`.
        @available(*, deprecated, message: "pass clock: the manager reads the time from it")
        public init(
            trigger: RefreshTrigger = .status401,
            header: String = "Authorization",
            scheme: String? = "Bearer",
            maxRefreshes: Int = 5,
            refreshWindow: Duration = .seconds(30),
            refreshTimeout: Duration = .seconds(30),
            refreshBeforeExpiry: Duration = .seconds(30),
            isSessionExpired: @escaping @Sendable (any Error) -> Bool = {
                !Options.isConnectionProblemOrServerFault($0)
            },
            callbackQueue: DispatchQueue = .main,
            clock: any NetworkClock = SystemClock(),
            now: @escaping @Sendable () -> Date
        ) {
            self.init(
                trigger: trigger, header: header, scheme: scheme, maxRefreshes: maxRefreshes,
                refreshWindow: refreshWindow, refreshTimeout: refreshTimeout,
                refreshBeforeExpiry: refreshBeforeExpiry, isSessionExpired: isSessionExpired,
                callbackQueue: callbackQueue, clock: dated(clock, date: now))
        }

        /// Whether `error` is a connection problem (offline, cannot connect, connection lost, timeout, cancelled) or a
        /// `5xx` of the refresh endpoint rather than a refusal of the refresh token.
        public static func isConnectionProblemOrServerFault(_ error: any Error) -> Bool {
            guard error is BaseServerError || error is URLError || error is CancellationError else { return false }
            let mapped = TransportErrorMapper.map(error)
            let connection: Set<BaseServerError.Code> = [
                .noInternetConnection, .cannotConnect, .connectionLost, .timeout, .cancelled, .transport,
            ]
            return connection.contains(mapped.code) || (mapped.statusCode ?? 0) >= 500
        }

        /// ``refreshTimeout`` between zero and a day, safe to sleep for.
        var clampedTimeout: Duration { min(max(refreshTimeout, .zero), .seconds(86_400)) }
    }
}

/// A clock that waits as `base` does and reads its date from a closure, for the deprecated `Options.now`.
private struct DatedClock<Base: NetworkClock>: NetworkClock {
    let base: Base
    let date: @Sendable () -> Date

    var now: Base.Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }
    var currentDate: Date { date() }

    func sleep(until deadline: Base.Instant, tolerance: Duration?) async throws {
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}

private func dated(_ clock: any NetworkClock, date: @escaping @Sendable () -> Date) -> any NetworkClock {
    func wrap<C: NetworkClock>(_ clock: C) -> any NetworkClock { DatedClock(base: clock, date: date) }
    return wrap(clock)
}
