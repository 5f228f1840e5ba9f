//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Maps what a transport throws to ``BaseServerError``, once, at the transport boundary.
///
/// Each transport normalises its faults to the same `URLError` codes, so a fault gets the same
/// ``BaseServerError/Code-swift.struct`` on either. Messages are CoreNetKit's own, never Foundation's.
enum TransportErrorMapper {
    static func map(_ error: any Error) -> BaseServerError {
        if let error = error as? BaseServerError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? URLError {
            if let trust = ServerTrustFailure(error) {
                return BaseServerError(code: .serverTrust, message: trust.message, underlyingError: error)
            }
            let (code, message) = classify(error.code)
            return BaseServerError(code: code, message: message, underlyingError: error)
        }
        if let error = error as? CocoaError, error.isFileError {
            return BaseServerError(code: .fileAccess, message: fileMessage(error), underlyingError: error)
        }
        return BaseServerError(
            code: .transport, message: "The request failed because of a network error.", underlyingError: error)
    }

    static func classify(_ code: URLError.Code) -> (BaseServerError.Code, String?) {
        switch code {
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff:
            return (.noInternetConnection, nil)
        case .cannotConnectToHost: return (.cannotConnect, "The server refused the connection.")
        case .cannotFindHost, .dnsLookupFailed: return (.cannotConnect, "The server's host name could not be found.")
        case .networkConnectionLost: return (.connectionLost, nil)
        case .timedOut: return (.timeout, nil)
        case .cancelled: return (.cancelled, nil)
        case .httpTooManyRedirects: return (.transport, "The server redirected too many times.")
        case .redirectToNonExistentLocation:
            return (.transport, "The server redirected to a location that does not exist.")
        case .badServerResponse, .cannotParseResponse:
            return (.transport, "The server sent a response that is not valid HTTP.")
        case .badURL, .unsupportedURL: return (.transport, "The request's URL is not valid.")
        case .dataLengthExceedsMaximum:
            return (.responseTooLarge, "the response body is larger than the transport accepts")
        case .resourceUnavailable:
            return (.transport, "The server's response was too large to receive.")
        case .cannotDecodeRawData, .cannotDecodeContentData:
            return (.transport, "The server's compressed response could not be decoded.")
        case .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid:
            return (.serverTrust, "The server's certificate is not trusted.")
        case .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired:
            return (.transport, "A secure connection to the server could not be made.")
        case .userAuthenticationRequired, .userCancelledAuthentication:
            return (.unauthorized, nil)
        case .cannotOpenFile, .cannotCreateFile, .cannotWriteToFile, .cannotRemoveFile, .cannotMoveFile,
            .fileDoesNotExist, .noPermissionsToReadFile, .fileIsDirectory:
            return (.fileAccess, "the transfer's file could not be opened, read or written")
        default: return (.transport, "The request failed because of a network error.")
        }
    }

    /// A readable reason for a file error, naming the file when known.
    static func fileMessage(_ error: CocoaError) -> String {
        let path = (error.userInfo[NSFilePathErrorKey] as? String) ?? error.url?.path
        let file = path.map { "the file at \($0)" } ?? "a file"
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return "\(file) does not exist"
        case .fileReadNoPermission, .fileWriteNoPermission: return "permission to access \(file) was denied"
        case .fileWriteOutOfSpace: return "the disk is full"
        case .fileWriteVolumeReadOnly: return "\(file) is on a read-only volume"
        default: return "\(file) could not be read or written"
        }
    }
}

/// A server trust failure: a `URLError` with a server-certificate code, or one a transport marked with
/// ``reasonKey``. Mapped to ``BaseServerError/Code-swift.struct/serverTrust`` with a message naming host and reason.
struct ServerTrustFailure {
    /// The `userInfo` key under which a transport puts the reason, in words ("it has expired").
    static let reasonKey = "CoreNetKitServerTrustReason"

    /// "The certificate of api.example.com is not trusted: it has expired."
    let message: String

    /// Reads `error`; `nil` when it is not a trust failure.
    init?(_ error: URLError) {
        let marked = error.userInfo[Self.reasonKey] as? String
        guard marked != nil || TransportErrorMapper.classify(error.code).0 == .serverTrust else { return nil }
        let host = (error.userInfo[NSURLErrorFailingURLErrorKey] as? URL)?.host
        let reason = marked ?? Self.reason(for: error.code)
        message = "The certificate of \(host ?? "the server") is not trusted" + (reason.map { ": \($0)" } ?? "") + "."
    }

    /// The error a transport throws for a refused certificate of `url`'s host.
    static func error(_ code: URLError.Code, url: URL, reason: String, underlying: (any Error)? = nil) -> URLError {
        var info: [String: Any] = [reasonKey: reason, NSURLErrorFailingURLErrorKey: url]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return URLError(code, userInfo: info)
    }

    private static func reason(for code: URLError.Code) -> String? {
        switch code {
        case .serverCertificateHasBadDate: return "it has expired or is not valid yet"
        case .serverCertificateNotYetValid: return "it is not valid yet"
        case .serverCertificateHasUnknownRoot: return "it was issued by an unknown certificate authority"
        default: return nil
        }
    }
}
