//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

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
