//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// One exchange as it went on the wire, or one cache answer, redacted as logs are: what a recorder such as
/// ``HARRecorder`` writes down. Delivered in NetworkEventMonitor/request(_:didExchange:) to monitors that set
/// NetworkEventMonitor/exchangeBodyLimit.
public struct MonitoredExchange: Sendable {
    /// A body, redacted and cut at the monitor's NetworkEventMonitor/exchangeBodyLimit.
    public struct Body: Sendable, Equatable {
        /// The body as text, or base64 when ``isBase64`` (bytes that are not UTF-8 text).
        public var text: String {
            switch storage {
            case .text(let text): text
            case .utf8(let bytes): String(decoding: bytes, as: UTF8.self)
            }
        }
        /// Raw UTF-8 when shown as it came (most bodies), so a recorder writes it without making a string.
        let storage: Storage
        /// Whether ``text`` is the base64 form of the bytes.
        public let isBase64: Bool
        /// The size of the whole body in bytes, also when ``text`` holds only its start.
        public let size: Int
        /// Whether ``text`` holds only the start of the body.
        public let isTruncated: Bool
        /// The `Content-Type`, or `application/octet-stream` when there is none.
        public let mimeType: String
        /// The fields of a request's form or multipart body, redacted, each value cut at the limit; `nil` otherwise.
        public internal(set) var parameters: [Parameter]? = nil

        enum Storage: Sendable {
            case text(String)
            /// Valid UTF-8.
            case utf8(Data)
        }

        func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
            switch storage {
            case .text(var text): text.withUTF8(body)
            case .utf8(let bytes): bytes.withUnsafeBytes { $0.withMemoryRebound(to: UInt8.self, body) }
            }
        }

        var utf8Count: Int {
            switch storage {
            case .text(let text): text.utf8.count
            case .utf8(let bytes): bytes.count
            }
        }

        public static func == (left: Body, right: Body) -> Bool {
            left.isBase64 == right.isBase64 && left.size == right.size && left.isTruncated == right.isTruncated
                && left.mimeType == right.mimeType && left.parameters == right.parameters && left.text == right.text
        }
    }

    /// A field of a form or multipart request body.
    public struct Parameter: Sendable, Equatable {
        /// Its name.
        public let name: String
        /// Its value, redacted; `nil` for a file or a part that is not text.
        public let value: String?
        /// The name of the file a multipart part carries.
        public let fileName: String?
        /// The `Content-Type` of a multipart part.
        public let contentType: String?
    }

    /// The attempt, from 1; 0 for an answer of the cache.
    public let attempt: Int
    /// When the request was handed to the exchange, on the configuration's clock.
    public let startedAt: Date
    /// The method.
    public let method: HTTPMethod
    /// The URL the request went to, redacted.
    public let url: String
    /// The header fields sent, credentials masked (cookies included).
    public let requestHeaders: HTTPHeaders
    /// The names of the cookies sent, in order (their values are secrets and are not kept).
    public let sentCookies: [String]
    /// The response's `Set-Cookie` lines, values masked, attributes kept: `session=<redacted>; Path=/; HttpOnly`.
    public let setCookies: [String]
    /// The body sent; `nil` when none. A body streamed from a file or a sequence is given by size only.
    public let requestBody: Body?
    /// The status; `nil` when the attempt failed before a response.
    public let statusCode: Int?
    /// The response's protocol (`HTTP/1.1`, `HTTP/2.0`); `nil` when the transport cannot tell, and for the cache.
    public let httpVersion: String?
    /// The header fields received, credentials masked (`Set-Cookie` included).
    public let responseHeaders: HTTPHeaders
    /// The body received; for a streamed response what the reader was given, up to the limit.
    public let responseBody: Body?
    /// The URL of the response when redirects were followed to it, redacted; `nil` otherwise.
    public let redirectedTo: String?
    /// Why the attempt failed; `nil` when a response arrived.
    public let error: BaseServerError?
    /// Whether the cache answered (no exchange took place).
    public let isFromCache: Bool
    /// Whether a stage made it in the background after the request ended (a `stale-while-revalidate`
    /// revalidation); it reaches the monitor after NetworkEventMonitor/request(_:didFinish:).
    public let isAfterRequestEnded: Bool
    /// From the handover to the exchange to the handover to the transport (encoding, cookies).
    public let blocked: Duration
    /// From the handover to the transport to the response's head (a small body may arrive with it).
    public let wait: Duration
    /// From the head to the end of the body; `wait + receive` is MonitoredResponse/duration.
    public let receive: Duration

    /// A cache answer for recorders to see, for a stage of yours that answers from a store: `response` redacted,
    /// bodies cut at `bodyLimit` bytes, no time spent.
    public init(cachedAnswer response: ServerResponse, at date: Date, bodyLimit: Int) {
        let answer = ReceivedResponse(
            statusCode: response.statusCode, headers: response.headers, url: nil, body: response.data,
            bytes: Int64(response.data.count))
        let record = Record(
            attempt: 0, startedAt: date, request: response.transportRequest, response: answer, error: nil,
            blocked: .zero, wait: .zero, receive: .zero, isFromCache: true)
        self.init(record, bodyLimit: bodyLimit)
    }

    /// Before redaction.
    struct Record: Sendable {
        var attempt: Int
        var startedAt: Date
        var request: TransportRequest
        var response: ReceivedResponse?
        var error: BaseServerError?
        var blocked: Duration
        var wait: Duration
        var receive: Duration
        var isFromCache = false
        var isAfterRequestEnded = false
    }

    /// The URL is taken from `request` when it already reports the one sent, so it is not redacted twice.
    init(_ record: Record, bodyLimit: Int, reportedAs request: MonitoredRequest? = nil) {
        let sent = record.request
        let (headers, secrets) = LogRedactor.redactRequest(
            headers: sent.headers.fields, url: sent.url, body: sent.body.data)
        self.attempt = record.attempt
        self.startedAt = record.startedAt
        self.method = sent.method
        self.url = request.flatMap { $0.hostURL == sent.url ? $0.url : nil } ?? LogRedactor.redact(url: sent.url)
        self.requestHeaders = HTTPHeaders(headers)
        self.sentCookies = Self.cookieNames(sent.headers)
        self.requestBody = Body(sent.body, headers: sent.headers, secrets: secrets, limit: bodyLimit)
        let received = record.response
        self.statusCode = received?.statusCode
        self.httpVersion = received?.httpVersion
        self.responseHeaders = HTTPHeaders(
            LogRedactor.redact(headers: received?.headers.fields ?? [], secrets: secrets))
        self.setCookies = received.map { Self.maskedSetCookies($0.headers) } ?? []
        self.responseBody = received.flatMap { received in
            let bytes = received.body.isEmpty ? received.streamedPrefix : received.body
            return Body(bytes, size: Int(received.bytes), headers: received.headers, secrets: secrets, limit: bodyLimit)
        }
        self.redirectedTo = received?.url.flatMap { $0 == sent.url ? nil : LogRedactor.redact(url: $0) }
        self.error = record.error
        self.isFromCache = record.isFromCache
        self.isAfterRequestEnded = record.isAfterRequestEnded
        self.blocked = record.blocked
        self.wait = record.wait
        self.receive = record.receive
    }
}

extension MonitoredExchange {
    static func cookieNames(_ headers: HTTPHeaders) -> [String] {
        headers.values(for: "Cookie").flatMap { $0.split(separator: ";") }.compactMap { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map { String($0.trimmingHTTPWhitespace) }
            return name.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    static func maskedSetCookies(_ headers: HTTPHeaders) -> [String] {
        headers.values(for: "Set-Cookie").flatMap(SetCookieSplitter.split).map { line in
            let parts = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let attributes = parts.count > 1 ? ";" + parts[1] : ""
            return name.trimmingHTTPWhitespace + "=" + LogRedactor.mask + attributes
        }
    }
}

extension MonitoredExchange.Body {
    /// A request body: in memory, redacted; from a file or a sequence, by size only.
    init?(_ body: RequestBody, headers: HTTPHeaders, secrets: [String], limit: Int) {
        if let data = body.data {
            guard !data.isEmpty else { return nil }
            self.init(data, size: data.count, headers: headers, secrets: secrets, limit: limit)
            parameters = LogRedactor.parameters(of: data, contentType: headers["Content-Type"], secrets: secrets)?.map {
                guard let value = $0.value, value.utf8.count > limit else { return $0 }
                let cut = String(decoding: Self.completeCharacters(Data(value.utf8.prefix(limit))), as: UTF8.self)
                return MonitoredExchange.Parameter(
                    name: $0.name, value: cut, fileName: $0.fileName, contentType: $0.contentType)
            }
            return
        }
        guard let length = body.length, length > 0 || body.isStream else { return nil }
        self.init(
            storage: .text(""), isBase64: false, size: Int(length), isTruncated: true,
            mimeType: headers["Content-Type"] ?? "application/octet-stream")
    }

    /// `bytes` (the start of a body of `size`) redacted and cut at `limit`: structured bodies as logs show them,
    /// other UTF-8 text with the request's secrets masked, anything else as base64. `nil` for an empty body.
    init?(_ bytes: Data, size: Int, headers: HTTPHeaders, secrets: [String], limit: Int) {
        guard size > 0 else { return nil }
        let mimeType = headers["Content-Type"] ?? "application/octet-stream"
        let whole = bytes.count == size
        let shown = bytes.prefix(limit)
        let truncated = shown.count < size
        // Only a body that may name a secret is parsed and rewritten; multipart is always shown as its parts.
        if whole,
            LogRedactor.multipartBoundary(contentType: mimeType, body: bytes) != nil
                || LogRedactor.mayNameSecret(bytes),
            let redacted = LogRedactor.redactStructured(body: bytes, contentType: mimeType, secrets: secrets)
        {
            self.init(text: redacted, size: size, isTruncated: truncated, mimeType: mimeType, limit: limit)
            return
        }
        let text = truncated ? Self.completeCharacters(shown) : shown
        guard let string = String(validating: text, as: UTF8.self) else {
            self.init(
                storage: .text(shown.base64EncodedString()), isBase64: true, size: size, isTruncated: truncated,
                mimeType: mimeType)
            return
        }
        guard secrets.isEmpty else {
            let masked = LogRedactor.masking(secrets, in: string)
            self.init(text: masked, size: size, isTruncated: truncated, mimeType: mimeType, limit: limit)
            return
        }
        // Kept as bytes, copied out of a longer body so that the exchange does not keep all of it.
        self.init(
            storage: .utf8(truncated ? Data(text) : text), isBase64: false, size: size, isTruncated: truncated,
            mimeType: mimeType)
    }

    private init(text: String, size: Int, isTruncated: Bool, mimeType: String, limit: Int) {
        let fits = text.utf8.count <= limit
        let shown =
            fits ? text : String(decoding: Self.completeCharacters(Data(text.utf8.prefix(limit))), as: UTF8.self)
        self.init(
            storage: .text(shown), isBase64: false, size: size, isTruncated: isTruncated || !fits, mimeType: mimeType)
    }

    /// `bytes` without the UTF-8 character its end cuts, if any.
    private static func completeCharacters(_ bytes: Data) -> Data {
        var lead = bytes.endIndex
        while lead > bytes.startIndex, bytes.endIndex - lead < 4, bytes[lead - 1] & 0xC0 == 0x80 { lead -= 1 }
        guard lead > bytes.startIndex, bytes[lead - 1] >= 0xC0 else { return bytes }
        let first = bytes[lead - 1]
        let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2
        return bytes.endIndex - (lead - 1) >= length ? bytes : bytes[bytes.startIndex..<lead - 1]
    }
}
