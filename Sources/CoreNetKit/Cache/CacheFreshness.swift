//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Freshness for responses that say nothing about it: a capped fraction of the time since `Last-Modified` (RFC 9111
/// §4.2.2).
///
/// Off unless set on ``NetworkConfiguration/heuristicFreshness``: by default a response without `max-age` or `Expires`
/// is stale at once.
public struct HeuristicFreshness: Sendable, Hashable {
    /// The part of `Date` minus `Last-Modified` that the response stays fresh; browsers use 0.1.
    public var fraction: Double
    /// The longest freshness a heuristic may give.
    public var maximum: Duration

    /// Creates a heuristic; the defaults are browsers' 10 %, at most a day.
    public init(fraction: Double = 0.1, maximum: Duration = .seconds(24 * 60 * 60)) {
        self.fraction = fraction
        self.maximum = maximum
    }
}

/// How fresh one stored response is now, for a private client cache (RFC 9111 §4.2). The response time is
/// ``CachedResponse/storedAt``; the request's duration is unknown afterwards and counts as zero.
struct CacheFreshness: Sendable, Equatable {
    /// How long the response is fresh, in seconds; 0 without an explicit or heuristic lifetime.
    let lifetime: Double
    let age: Double
    /// `no-cache`: never used without a successful revalidation.
    let requiresRevalidation: Bool
    /// `must-revalidate`: once stale, never used without a successful revalidation, even offline.
    let mustRevalidate: Bool
    /// `stale-while-revalidate`, in seconds past the lifetime.
    let staleWhileRevalidate: Double?
    /// `stale-if-error`, in seconds past the lifetime.
    let staleIfError: Double?

    init(_ entry: CachedResponse, now: Date, heuristic: HeuristicFreshness?) {
        let control = CacheControl(entry.headers.values(for: "Cache-Control"))
        let responseTime = entry.storedAt
        let date = entry.headers["Date"].flatMap(HTTPDate.parse) ?? responseTime
        if let maxAge = control.seconds("max-age") {
            lifetime = Double(maxAge)
        } else if let expires = entry.headers["Expires"] {
            // An Expires that is not a date ("0", "-1") means already expired (RFC 9111 §5.3).
            lifetime = HTTPDate.parse(expires).map { max(0, $0.timeIntervalSince(date)) } ?? 0
        } else if let heuristic, let lastModified = entry.headers["Last-Modified"].flatMap(HTTPDate.parse) {
            let cap = Double(heuristic.maximum.components.seconds)
            lifetime = min(max(0, date.timeIntervalSince(lastModified)) * heuristic.fraction, cap)
        } else {
            lifetime = 0
        }
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let ageValue = entry.headers["Age"].flatMap { Double($0.trimmingHTTPWhitespace) } ?? 0
        let initialAge = max(apparentAge, max(0, ageValue))
        age = initialAge + max(0, now.timeIntervalSince(responseTime))
        requiresRevalidation = control.has("no-cache")
        mustRevalidate = control.has("must-revalidate")
        staleWhileRevalidate = control.seconds("stale-while-revalidate").map(Double.init)
        staleIfError = control.seconds("stale-if-error").map(Double.init)
    }

    /// Whether the response may answer a request with `requestDirectives` without the network.
    func isFresh(for requestDirectives: CacheControl) -> Bool {
        guard !requiresRevalidation, !requestDirectives.has("no-cache"), age < lifetime else { return false }
        // A request's max-age=N asks for an answer at most N seconds old; max-age=0 always asks the server.
        guard let limit = requestDirectives.seconds("max-age") else { return true }
        return limit > 0 && age <= Double(limit)
    }

    /// Whether the stale response may answer at once while it is revalidated in the background.
    var allowsStaleWhileRevalidate: Bool {
        guard let window = staleWhileRevalidate, !requiresRevalidation, !mustRevalidate else { return false }
        return age < lifetime + window
    }

    /// Whether the stale response may answer when the server fails or cannot be reached.
    var allowsStaleIfError: Bool {
        guard let window = staleIfError, !requiresRevalidation, !mustRevalidate else { return false }
        return age <= lifetime + window
    }

    /// Whether it may be CachePolicy/serverIfFailReadFromCache's fallback: unless stale with `must-revalidate`.
    var allowsFallback: Bool { !mustRevalidate || age < lifetime }
}

/// The directives of `Cache-Control` fields (RFC 9111 §5.2), names lower-cased.
///
/// A repeated directive keeps its first value; quotes are dropped. A field-name list (`no-cache="Set-Cookie"`) counts
/// as the bare directive, the safe reading for a client cache.
struct CacheControl: Sendable, Equatable {
    private var directives: [String: String?] = [:]

    init(_ values: [String]) {
        for value in values {
            for part in Self.split(value) {
                let pieces = part.split(separator: "=", maxSplits: 1)
                guard let rawName = pieces.first else { continue }
                let name = rawName.trimmingHTTPWhitespace.lowercased()
                guard !name.isEmpty, directives[name] == nil else { continue }
                var argument = pieces.count == 2 ? pieces[1].trimmingHTTPWhitespace : nil
                if let text = argument, text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                    argument = text.dropFirst().dropLast()
                }
                directives[name] = .some(argument.map(String.init))
            }
        }
    }

    /// The request's directives: its `Cache-Control` headers, or `Pragma: no-cache` when it has none.
    init(requestHeaders headers: [String: String]) {
        let cacheControl = headers.filter { $0.key.caseInsensitiveCompare("Cache-Control") == .orderedSame }
        let pragma = headers.first { $0.key.caseInsensitiveCompare("Pragma") == .orderedSame }?.value
        let noCache = pragma?.lowercased().contains("no-cache") == true ? ["no-cache"] : []
        self.init(cacheControl.isEmpty ? noCache : Array(cacheControl.values))
    }

    func has(_ name: String) -> Bool { directives[name] != nil }

    /// The directive `name` as delta-seconds; `nil` when absent, `0` when invalid (RFC 9111 §1.2.2: means "stale").
    func seconds(_ name: String) -> Int? {
        guard let entry = directives[name] else { return nil }
        guard let text = entry, let value = Int(text), value >= 0 else { return 0 }
        return value
    }

    /// Splits a field value at commas outside quoted strings.
    private static func split(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var quoted = false
        for index in value.indices {
            let character = value[index]
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                parts.append(value[start..<index])
                start = value.index(after: index)
            }
        }
        parts.append(value[start...])
        return parts
    }
}
