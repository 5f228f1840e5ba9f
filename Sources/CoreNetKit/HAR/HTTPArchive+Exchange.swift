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
    /// receive.
    public init(_ exchange: MonitoredExchange, requestId: String?) {
        let blocked = Self.milliseconds(exchange.blocked)
        let wait = Self.milliseconds(exchange.wait)
        let receive = Self.milliseconds(exchange.receive)
        self.init(
            startedDateTime: Self.timestamp(exchange.startedAt),
            time: ((blocked + wait + receive) * 1000).rounded() / 1000,
            request: HTTPArchive.Request(exchange),
            response: HTTPArchive.Response(exchange),
            cache: HTTPArchive.Cache(comment: exchange.isFromCache ? "answered from the cache" : nil),
            timings: HTTPArchive.Timings(
                blocked: blocked, dns: -1, connect: -1, send: 0, wait: wait, receive: receive, ssl: -1),
            comment: exchange.isAfterRequestEnded ? "after the request ended (a background revalidation)" : nil,
            requestId: requestId, attempt: exchange.isFromCache ? nil : exchange.attempt,
            fromCache: exchange.isFromCache ? "disk" : nil,
            error: exchange.error.map { "\($0.code)" })
    }

    /// `duration` in milliseconds, to the microsecond.
    static func milliseconds(_ duration: Duration) -> Double {
        let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        return Double(max(microseconds, 0)) / 1000
    }

    /// `date` as ISO 8601 with milliseconds, in UTC.
    static func timestamp(_ date: Date) -> String { HTTPDate.iso8601(date) }
}

extension HTTPArchive.Request {
    init(_ exchange: MonitoredExchange) {
        self.init(
            method: exchange.method.rawValue, url: exchange.url, httpVersion: exchange.httpVersion ?? "HTTP/1.1",
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
        let status = exchange.statusCode ?? 0
        let body = exchange.responseBody
        let compressed = exchange.responseHeaders["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false
        self.init(
            status: status,
            statusText: HTTPArchive.reasonPhrase(status),
            httpVersion: exchange.httpVersion ?? "HTTP/1.1",
            cookies: exchange.setCookies.map(HTTPArchive.Cookie.init(setCookie:)),
            headers: exchange.responseHeaders.map { HTTPArchive.Field(name: $0.name, value: $0.value) },
            content: HTTPArchive.Content(
                size: body?.size ?? 0, mimeType: body?.mimeType ?? exchange.responseHeaders["Content-Type"] ?? "",
                text: body?.text, encoding: body?.isBase64 == true ? "base64" : nil,
                comment: body?.isTruncated == true ? "truncated" : nil),
            redirectURL: exchange.responseHeaders["Location"] ?? exchange.redirectedTo ?? "",
            headersSize: -1,
            bodySize: exchange.isFromCache ? 0 : compressed ? -1 : body?.size ?? 0,
            comment: exchange.error?.errorDescription)
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

    /// The comment of a recorded body: how its text is to be read.
    static func comment(_ body: MonitoredExchange.Body) -> String? {
        let notes = (body.isBase64 ? ["base64"] : []) + (body.isTruncated ? ["truncated"] : [])
        return notes.isEmpty ? nil : notes.joined(separator: ", ")
    }
}
