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

/// What a ``CacheAdapter`` files an entry under: the method, the URL as sent (query in the encoder's sorted order) and,
/// for responses with `Vary`, a digest of the request headers it names.
///
/// The key without a variant is looked up first, then that of the request's variant if the `Vary` headers differ. Keys
/// hold only a SHA-256 of header values, so `Vary: Authorization` never writes a token into one.
///
/// ```swift
/// await adapter.remove(CacheKey(method: .get, url: URL(string: "https://api.example.com/me")!))
/// ```
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The request method.
    public let method: HTTPMethod
    /// The request URL without its fragment.
    public let url: String
    /// The SHA-256 of the `Vary`-named request headers, or `nil` for the entry of the URL itself.
    public let variant: String?

    /// Creates the key of `method` and `url`; the fragment is dropped.
    public init(method: HTTPMethod, url: URL, variant: String? = nil) {
        var absolute = url.absoluteString
        if let hash = absolute.firstIndex(of: "#") { absolute = String(absolute[..<hash]) }
        self.init(method: method, urlString: absolute, variant: variant)
    }

    func varying(_ digest: String) -> CacheKey { CacheKey(method: method, urlString: url, variant: digest) }

    private init(method: HTTPMethod, urlString: String, variant: String?) {
        self.method = method
        self.url = urlString
        self.variant = variant
    }

    /// One string naming the entry: `GET https://…/orders?skip=0`, plus ` vary=<digest>`.
    public var rawValue: String {
        variant.map { "\(method.rawValue) \(url) vary=\($0)" } ?? "\(method.rawValue) \(url)"
    }

    /// The SHA-256 of ``rawValue`` in hex: a file name safe on every file system.
    public var digest: String { SHA256.hex(rawValue) }

    /// ``rawValue`` with secrets in the URL's query redacted, for logs.
    public var description: String {
        let redacted = LogRedactor.redact(url: URL(string: url))
        return variant.map { "\(method.rawValue) \(redacted) vary=\($0.prefix(12))" }
            ?? "\(method.rawValue) \(redacted)"
    }
}

extension HTTPMethod {
    var isCacheable: Bool { self == .get || self == .head }
}
