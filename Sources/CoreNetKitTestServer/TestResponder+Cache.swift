//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird

/// HTTP caching helpers: `/cache/etag/:key`, `/cache/no-store`, `/cache/vary`.
extension TestResponder {
    /// `GET /cache/etag/:key`: a versioned resource with a strong ETag and a Last-Modified date;
    /// 304 when `If-None-Match` matches (or, without `If-None-Match`, `If-Modified-Since` equals
    /// Last-Modified).
    func etag(_ key: String, request: Request) -> Response {
        let version = self.core.cacheVersion(key)
        let eTag = "\"\(key)-v\(version)\""
        let lastModified = Self.lastModified(version: version)
        var headers = HTTPFields()
        headers[.eTag] = eTag
        headers[.lastModified] = lastModified
        headers[.cacheControl] = "max-age=0"

        let ifNoneMatch = request.headers[values: .ifNoneMatch]
        let notModified: Bool
        if !ifNoneMatch.isEmpty {
            notModified = ifNoneMatch.contains { value in
                value.split(separator: ",").contains { candidate in
                    var tag = candidate.trimmingCharacters(in: .whitespaces)
                    if tag.hasPrefix("W/") { tag.removeFirst(2) }
                    return tag == eTag || tag == "*"
                }
            }
        } else if let ifModifiedSince = request.headers[.ifModifiedSince] {
            notModified = ifModifiedSince.trimmingCharacters(in: .whitespaces) == lastModified
        } else {
            notModified = false
        }
        if notModified {
            return Response(status: .notModified, headers: headers)
        }
        return Self.json(.object([("key", .string(key)), ("version", .int(version))]), headers: headers)
    }

    /// `GET /cache/no-store`: `Cache-Control: no-store` and a value that grows on every hit.
    func noStore() -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        let value = self.core.nextNoStoreValue()
        return Self.json(.object([("key", .string("no-store")), ("value", .int(value))]), headers: headers)
    }

    /// `GET /cache/vary`: `Vary: Accept-Language`, echoing the language and a value that grows on every hit.
    func vary(_ request: Request) -> Response {
        var headers = HTTPFields()
        headers[.vary] = "Accept-Language"
        let language = request.headers[.acceptLanguage] ?? "none"
        let value = self.core.nextVaryValue()
        return Self.json(.object([("language", .string(language)), ("value", .int(value))]), headers: headers)
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The fixed Last-Modified date of `version`: 2024-01-01 00:00:00 GMT plus `version - 1` days,
    /// in IMF-fixdate form (`Mon, 01 Jan 2024 00:00:00 GMT`).
    static func lastModified(version: Int) -> String {
        let days = 19723 + (version - 1)  // days from 1970-01-01 to 2024-01-01
        // Civil-from-days (H. Hinnant), proleptic Gregorian calendar.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (index 4)
        let dayText = day < 10 ? "0\(day)" : "\(day)"
        return "\(Self.weekdays[weekday]), \(dayText) \(Self.months[month - 1]) \(year) 00:00:00 GMT"
    }
}
