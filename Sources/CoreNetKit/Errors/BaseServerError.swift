//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The one error type CoreNetKit creates: what went wrong, with the context to show or log it.
///
/// Match on ``code-swift.property``; new codes can be added without breaking clients.
///
/// ```swift
/// .onError { error in
///     if let error = error as? BaseServerError, error.code == .noInternetConnection { showOffline() }
/// }
/// ```
public struct BaseServerError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case noInternetConnection, cannotConnect, connectionLost, timeout, cancelled
            case transport, cantMapping, badStatus, server, invalidRequest, unauthorized
            case tokenRefreshFailed, excessiveRefresh, cacheMiss
            case fileAccess, responseTooLarge
            case repeatedCursor, serverTrust
            case outboxFull
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The device has no network connection.
        public static let noInternetConnection = Code(.noInternetConnection)
        /// The host refused the connection or could not be found.
        public static let cannotConnect = Code(.cannotConnect)
        /// The connection dropped before the response was complete.
        public static let connectionLost = Code(.connectionLost)
        /// The server did not answer within the request's timeout.
        public static let timeout = Code(.timeout)
        /// The request was cancelled.
        public static let cancelled = Code(.cancelled)
        /// Any other transport failure; see ``BaseServerError/underlyingError``.
        public static let transport = Code(.transport)
        /// The response could not be mapped to the model; see ``BaseServerError/keyPath``.
        public static let cantMapping = Code(.cantMapping)
        /// The server answered with a status the validator rejects, and no readable error body.
        public static let badStatus = Code(.badStatus)
        /// The server reported an error in its body; see ``BaseServerError/message``, ``BaseServerError/serverCode``.
        public static let server = Code(.server)
        /// The request could not be built; see ``BaseServerError/message``.
        public static let invalidRequest = Code(.invalidRequest)
        /// The server rejected the credentials (and no refresh could fix it).
        public static let unauthorized = Code(.unauthorized)
        /// Refreshing the access token failed; see ``BaseServerError/underlyingError``.
        public static let tokenRefreshFailed = Code(.tokenRefreshFailed)
        /// Too many token refreshes in a short time; refreshing again was refused.
        public static let excessiveRefresh = Code(.excessiveRefresh)
        /// The cache policy required a cached response and there was none.
        public static let cacheMiss = Code(.cacheMiss)
        /// A multipart file part, streamed body's temporary file or download destination could not be read or
        /// written; see ``BaseServerError/message``.
        public static let fileAccess = Code(.fileAccess)
        /// The body, counted after decompression, passed ``NetworkConfiguration/maximumResponseBodySize`` (in memory)
        /// or ``NetworkConfiguration/maximumDownloadSize`` (file); the rest was not read. The message names the limit.
        public static let responseTooLarge = Code(.responseTooLarge)
        /// A ``CursorPaginator``'s server repeated a cursor from this run of pages, so paging stopped to avoid a loop.
        public static let repeatedCursor = Code(.repeatedCursor)
        /// The server's certificate was not trusted (unknown authority, expired, other host name, or no certificate
        /// pinned by the transport's ``ServerTrustPolicy``), so nothing was sent. Never retried;
        /// ``BaseServerError/message`` names the host and, when known, the reason.
        public static let serverTrust = Code(.serverTrust)
        /// An ``Outbox`` is at its store's entry or byte limit and refused to queue another; the message names it.
        public static let outboxFull = Code(.outboxFull)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The HTTP status, when a response arrived.
    public var statusCode: Int?
    /// The response body, when a response arrived.
    public var body: Data?
    /// A human-readable detail: the server's message, or why a request was invalid.
    public var message: String?
    /// The error code the server gave in its body, if any.
    public var serverCode: String?
    /// For ``Code-swift.struct/cantMapping``: the key path that could not be read.
    public var keyPath: String?
    /// The error this one wraps, if any.
    public var underlyingError: (any Error)?
    /// For a download with ``ServerRequest/keepsPartialDownload``: what it takes to resume it; `nil` when nothing
    /// resumable arrived.
    public var resumeData: DownloadResumeData?

    /// Creates an error; prefer the static constructors.
    public init(
        code: Code, statusCode: Int? = nil, body: Data? = nil, message: String? = nil,
        serverCode: String? = nil, keyPath: String? = nil, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.statusCode = statusCode
        self.body = body
        self.message = message
        self.serverCode = serverCode
        self.keyPath = keyPath
        self.underlyingError = underlyingError
    }

    /// The server answered `statusCode` with a body that carried no readable error.
    public static func badStatus(_ statusCode: Int, body: Data?) -> BaseServerError {
        BaseServerError(code: .badStatus, statusCode: statusCode, body: body)
    }

    /// The server reported `message` (and optionally its own `code`) in the body.
    public static func server(message: String, code: String?, statusCode: Int?, body: Data?) -> BaseServerError {
        BaseServerError(code: .server, statusCode: statusCode, body: body, message: message, serverCode: code)
    }

    /// The response could not be read as the model at `keyPath`.
    public static func cantMapping(keyPath: String, reason: String, underlying: (any Error)? = nil) -> BaseServerError {
        BaseServerError(code: .cantMapping, message: reason, keyPath: keyPath, underlyingError: underlying)
    }

    /// The request could not be built, because of `reason`.
    public static func invalidRequest(_ reason: String) -> BaseServerError {
        BaseServerError(code: .invalidRequest, message: reason)
    }

    /// The request was cancelled.
    public static let cancelled = BaseServerError(code: .cancelled)

    /// The response body passed `limit` bytes.
    public static func responseTooLarge(limit: Int64, statusCode: Int? = nil) -> BaseServerError {
        responseTooLarge(limit: limit, setting: "maximumResponseBodySize", statusCode: statusCode)
    }

    /// The body passed `limit` bytes; the message names the configuration's `setting` to raise (`nil`: caller's).
    static func responseTooLarge(limit: Int64, setting: String?, statusCode: Int? = nil) -> BaseServerError {
        BaseServerError(
            code: .responseTooLarge, statusCode: statusCode,
            message: "the response body (after decompression) is larger than the limit of \(limit) bytes"
                + (setting.map { " (NetworkConfiguration.\($0))" } ?? ""))
    }

    /// The response body passed `limit` bytes.
    public static func responseTooLarge(limit: Int) -> BaseServerError {
        responseTooLarge(limit: Int64(limit))
    }

    public var description: String {
        var parts = ["BaseServerError.\(code)"]
        if let statusCode { parts.append("status \(statusCode)") }
        if let serverCode { parts.append("server code \(serverCode)") }
        if let keyPath { parts.append("key path \"\(keyPath)\"") }
        if let message { parts.append(message) }
        if let underlyingError { parts.append("underlying: \(underlyingError)") }
        return parts.joined(separator: ", ")
    }
}

extension BaseServerError: LocalizedError {
    /// A sentence that can be shown to a person, the same for every transport.
    public var errorDescription: String? {
        switch code {
        case .noInternetConnection: return "The Internet connection appears to be offline."
        case .cannotConnect: return "Could not connect to the server." + (message.map { " \($0)" } ?? "")
        case .connectionLost: return "The network connection was lost before the response arrived."
        case .timeout: return "The server did not respond in time."
        case .cancelled: return "The request was cancelled."
        case .transport: return message ?? "The request failed because of a network error."
        case .cantMapping:
            return "Could not read the response at \"\(keyPath ?? "<root>")\": \(message ?? "unexpected data")."
        case .badStatus:
            return "The server answered with status \(statusCode.map(String.init) ?? "unknown")."
        case .server: return message ?? "The server reported an error."
        case .invalidRequest: return "The request is invalid: \(message ?? "unknown reason")."
        case .unauthorized: return "You are not authorized. Please sign in again."
        case .tokenRefreshFailed: return "Your session has expired. Please sign in again."
        case .excessiveRefresh: return "The session was refreshed too often; refreshing was stopped."
        case .cacheMiss: return "No cached data is available for this request."
        case .fileAccess: return "A file could not be read or written: \(message ?? "unknown reason")."
        case .responseTooLarge: return "The response is too large: \(message ?? "it passed the size limit")."
        case .repeatedCursor: return "The server repeated a page cursor it had already sent; paging stopped."
        case .serverTrust: return message ?? "The server's certificate is not trusted."
        case .outboxFull: return "The outbox is full: \(message ?? "it holds as much as its store allows")."
        default: return "The request failed."
        }
    }

    public var failureReason: String? { description }
}

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
