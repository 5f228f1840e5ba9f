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

extension HTTPArchive.Entry {
    /// The entry of `exchange`, an attempt of the request `requestId` or an answer of the cache.
    ///
    /// Its timings are in whole microseconds, and ``time`` is their sum: blocked + send + wait +
    /// receive. The recorder writes the same entry without building it (HARWriter); both read
    /// each field's value from the helpers below.
    public init(_ exchange: MonitoredExchange, requestId: String?) {
        let (blocked, wait, receive) = Self.microseconds(exchange)
        self.init(
            startedDateTime: Self.timestamp(exchange.startedAt),
            time: Double(blocked + wait + receive) / 1000,
            request: HTTPArchive.Request(exchange),
            response: HTTPArchive.Response(exchange),
            cache: HTTPArchive.Cache(comment: Self.cacheComment(exchange)),
            timings: HTTPArchive.Timings(
                blocked: Double(blocked) / 1000, dns: -1, connect: -1, send: 0, wait: Double(wait) / 1000,
                receive: Double(receive) / 1000, ssl: -1),
            comment: Self.comment(exchange), requestId: requestId, attempt: Self.attempt(exchange),
            fromCache: Self.fromCache(exchange), error: Self.error(exchange))
    }

    /// The blocked, wait and receive times of `exchange` in whole microseconds.
    static func microseconds(_ exchange: MonitoredExchange) -> (blocked: Int, wait: Int, receive: Int) {
        (microseconds(exchange.blocked), microseconds(exchange.wait), microseconds(exchange.receive))
    }

    /// `duration` in whole microseconds, `0` below zero.
    static func microseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000), 0)
    }

    /// `duration` in milliseconds, to the microsecond.
    static func milliseconds(_ duration: Duration) -> Double { Double(microseconds(duration)) / 1000 }

    /// `date` as ISO 8601 with milliseconds, in UTC.
    static func timestamp(_ date: Date) -> String { HTTPDate.iso8601(date) }

    static func cacheComment(_ exchange: MonitoredExchange) -> String? {
        exchange.isFromCache ? "answered from the cache" : nil
    }

    static func comment(_ exchange: MonitoredExchange) -> String? {
        exchange.isAfterRequestEnded ? "after the request ended (a background revalidation)" : nil
    }

    static func attempt(_ exchange: MonitoredExchange) -> Int? { exchange.isFromCache ? nil : exchange.attempt }

    static func fromCache(_ exchange: MonitoredExchange) -> String? { exchange.isFromCache ? "disk" : nil }

    static func error(_ exchange: MonitoredExchange) -> String? { exchange.error.map { "\($0.code)" } }
}

extension HTTPArchive.Request {
    init(_ exchange: MonitoredExchange) {
        self.init(
            method: exchange.method.rawValue, url: exchange.url, httpVersion: HTTPArchive.httpVersion(exchange),
            cookies: exchange.sentCookies.map { HTTPArchive.Cookie(name: $0, value: LogRedactor.mask) },
            headers: exchange.requestHeaders.map { HTTPArchive.Field(name: $0.name, value: $0.value) },
            queryString: Self.queryItems(of: exchange.url),
            postData: exchange.requestBody.map { body in
                HTTPArchive.PostData(
                    mimeType: body.mimeType, text: body.text,
                    params: body.parameters?.map {
                        HTTPArchive.Param(
                            name: $0.name, value: $0.value, fileName: $0.fileName, contentType: $0.contentType)
                    },
                    comment: HTTPArchive.comment(body))
            },
            headersSize: -1, bodySize: exchange.requestBody?.size ?? 0)
    }

    /// The items of `url`'s query, decoded; read from the text, which redaction may have made
    /// an invalid URL.
    static func queryItems(of url: String) -> [HTTPArchive.Field] {
        guard LogRedactor.mayHaveQuery(url), let mark = url.firstIndex(of: "?") else { return [] }
        let end = url[mark...].firstIndex(of: "#") ?? url.endIndex
        return url[url.index(after: mark)..<end].split(separator: "&").map { item in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                let plain = text.replacingOccurrences(of: "+", with: " ")
                return plain.removingPercentEncoding ?? plain
            }
            return HTTPArchive.Field(name: decode(pair[0]), value: pair.count > 1 ? decode(pair[1]) : "")
        }
    }
}

extension HTTPArchive.Response {
    init(_ exchange: MonitoredExchange) {
        let body = exchange.responseBody
        self.init(
            status: exchange.statusCode ?? 0,
            statusText: HTTPArchive.reasonPhrase(exchange.statusCode ?? 0),
            httpVersion: HTTPArchive.httpVersion(exchange),
            cookies: exchange.setCookies.map(HTTPArchive.Cookie.init(setCookie:)),
            headers: exchange.responseHeaders.map { HTTPArchive.Field(name: $0.name, value: $0.value) },
            content: HTTPArchive.Content(
                size: body?.size ?? 0, mimeType: Self.mimeType(exchange), text: body?.text,
                encoding: body?.isBase64 == true ? "base64" : nil,
                comment: body?.isTruncated == true ? "truncated" : nil),
            redirectURL: Self.redirectURL(exchange),
            headersSize: -1,
            bodySize: Self.bodySize(exchange),
            comment: exchange.error?.errorDescription)
    }

    static func mimeType(_ exchange: MonitoredExchange) -> String {
        exchange.responseBody?.mimeType ?? exchange.responseHeaders["Content-Type"] ?? ""
    }

    static func redirectURL(_ exchange: MonitoredExchange) -> String {
        exchange.responseHeaders["Location"] ?? exchange.redirectedTo ?? ""
    }

    /// The bytes the response's body took on the wire: `0` for an answer of the cache, `-1`
    /// (unknown) when it came compressed.
    static func bodySize(_ exchange: MonitoredExchange) -> Int {
        guard !exchange.isFromCache else { return 0 }
        let compressed = exchange.responseHeaders["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false
        return compressed ? -1 : exchange.responseBody?.size ?? 0
    }
}

extension HTTPArchive.Cookie {
    /// The cookie of a `Set-Cookie` line (``MonitoredExchange/setCookies``, value masked).
    init(setCookie line: String) {
        let parts = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let pair = (parts.first ?? "").split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        self.init(name: String(pair[0]), value: pair.count > 1 ? String(pair[1]) : "")
        for attribute in parts.dropFirst() {
            let item = attribute.split(separator: "=", maxSplits: 1).map(String.init)
            switch item[0].lowercased() {
            case "path": path = item.count > 1 ? item[1] : nil
            case "domain": domain = item.count > 1 ? item[1] : nil
            case "expires": expires = item.count > 1 ? item[1] : nil
            case "httponly": httpOnly = true
            case "secure": secure = true
            default: break
            }
        }
    }

    init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension HTTPArchive {
    /// The reason phrase of `status` (the transports do not report the server's): `"OK"`,
    /// `"Not Modified"`; `""` for `0`. Read from a table made once for 100–599: Foundation's
    /// phrase and its capitalization cost more than the rest of an entry's response.
    static func reasonPhrase(_ status: Int) -> String {
        guard status > 0 else { return "" }
        return reasonPhrases.indices.contains(status - 100) ? reasonPhrases[status - 100] : phrase(of: status)
    }

    private static let reasonPhrases = (100..<600).map(phrase(of:))

    private static func phrase(of status: Int) -> String {
        let text = HTTPURLResponse.localizedString(forStatusCode: status).capitalized
        return text == "Ok" ? "OK" : text
    }

    /// The HTTP version of `exchange`'s response, `HTTP/1.1` when the transport did not say.
    static func httpVersion(_ exchange: MonitoredExchange) -> String { exchange.httpVersion ?? "HTTP/1.1" }

    /// The comment of a recorded body: how its text is to be read.
    static func comment(_ body: MonitoredExchange.Body) -> String? {
        let notes = (body.isBase64 ? ["base64"] : []) + (body.isTruncated ? ["truncated"] : [])
        return notes.isEmpty ? nil : notes.joined(separator: ", ")
    }
}
