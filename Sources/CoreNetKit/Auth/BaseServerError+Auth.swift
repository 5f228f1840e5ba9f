//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The errors of ``AccessSafeRequestManager``.
extension BaseServerError {
    /// Refreshing the access token failed because of `cause` (kept in ``underlyingError``).
    static func tokenRefreshFailed(_ cause: any Error) -> BaseServerError {
        BaseServerError(
            code: .tokenRefreshFailed, message: "refreshing the access token failed", underlyingError: cause)
    }

    static func excessiveRefresh(limit: Int, window: Duration) -> BaseServerError {
        BaseServerError(
            code: .excessiveRefresh,
            message: "\(limit) token refreshes already ran within \(window); refusing another")
    }

    /// The server rejected the access token and the manager cannot fix it (`reason` says why).
    static func unauthorized(_ response: ServerResponse?, reason: String) -> BaseServerError {
        BaseServerError(code: .unauthorized, statusCode: response?.statusCode, body: response?.data, message: reason)
    }

    /// Another process sharing the token store ended the session: its refresh was refused, or it signed out.
    static func sessionEndedElsewhere(signedOut: Bool) -> BaseServerError {
        BaseServerError(
            code: .unauthorized,
            message: signedOut
                ? "another process sharing the token store signed out"
                : "another process's refresh of these tokens was refused; the session is over")
    }
}
