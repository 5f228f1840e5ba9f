//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Maps what a transport throws to ``BaseServerError``, once, at the transport boundary.
enum TransportErrorMapper {
    static func map(_ error: any Error) -> BaseServerError {
        if let error = error as? BaseServerError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? URLError {
            let code: BaseServerError.Code
            switch error.code {
            case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: code = .noInternetConnection
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed: code = .cannotConnect
            case .networkConnectionLost: code = .connectionLost
            case .timedOut: code = .timeout
            case .cancelled: code = .cancelled
            default: code = .transport
            }
            return BaseServerError(code: code, message: error.localizedDescription, underlyingError: error)
        }
        if let error = error as? CocoaError, error.isFileError {
            return BaseServerError(code: .fileAccess, message: error.localizedDescription, underlyingError: error)
        }
        return BaseServerError(code: .transport, message: "\(error)", underlyingError: error)
    }
}
