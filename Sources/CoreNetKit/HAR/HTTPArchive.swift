//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// An HTTP Archive (HAR 1.2): the file browsers' developer tools, Charles, Proxyman and Fiddler
/// open and draw as a waterfall. ``HARRecorder`` writes one, ``HARReplayTransport`` answers from
/// one.
///
/// The types follow the HAR 1.2 specification field by field; fields the specification marks
/// optional are optionals here. Fields of CoreNetKit's own start with `_`, as the specification
/// allows: `_requestId`, `_attempt`, `_fromCache` (`"disk"` for an answer of the cache, as
/// Chrome writes it) and `_error`. Fields other tools add are ignored when a file is read.
public struct HTTPArchive: Codable, Sendable, Equatable {
    /// The archive's root.
    public var log: Log

    /// Creates an archive of `entries`.
    public init(entries: [Entry] = [], creator: Creator = .coreNetKit) {
        self.log = Log(version: "1.2", creator: creator, entries: entries)
    }

    /// Reads the archive at `url`.
    ///
    /// - Throws: ``BaseServerError`` with code `fileAccess` when the file cannot be read, or
    ///   `cantMapping` when it is not a HAR file.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw BaseServerError(code: .fileAccess, message: "could not read \(url.path)", underlyingError: error)
        }
        do {
            self = try JSONDecoder().decode(HTTPArchive.self, from: data)
        } catch {
            throw BaseServerError(
                code: .cantMapping, message: "\(url.lastPathComponent) is not a HAR 1.2 file", underlyingError: error)
        }
    }

    /// The archive as HAR text: UTF-8 JSON, keys sorted.
    public func encoded() throws -> Data {
        try Self.encoder.encode(self)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The log: who wrote it and its entries.
    public struct Log: Codable, Sendable, Equatable {
        /// The format's version, `"1.2"`.
        public var version: String
        /// The program that wrote the archive.
        public var creator: Creator
        /// One entry per exchange, in the order they ended.
        public var entries: [Entry]
        /// A comment.
        public var comment: String?
    }

    /// The program that wrote an archive.
    public struct Creator: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its version.
        public var version: String
        /// CoreNetKit, at its version.
        public static let coreNetKit = Creator(name: "CoreNetKit", version: CoreNetKitVersion.current)
    }

    /// One exchange: its request, its response (status `0` for an attempt that failed before
    /// one), and where its time went.
    public struct Entry: Codable, Sendable, Equatable {
        /// When the request was handed to the exchange, ISO 8601 with milliseconds.
        public var startedDateTime: String
        /// The sum of ``timings``' known parts, in milliseconds.
        public var time: Double
        /// The request.
        public var request: Request
        /// The response.
        public var response: Response
        /// The cache's state before and after; CoreNetKit writes it empty and marks an answer of
        /// the cache with ``fromCache``.
        public var cache: Cache
        /// Where the time went.
        public var timings: Timings
        /// A comment.
        public var comment: String?
        /// The ``TaskPool`` id of the request (CoreNetKit's field).
        public var requestId: String?
        /// The attempt, from 1 (CoreNetKit's field): a retried request is one entry per attempt.
        public var attempt: Int?
        /// `"disk"` when the cache answered (Chrome's field).
        public var fromCache: String?
        /// Why the attempt failed, for an entry with status `0` (Chrome's field): the error's code,
        /// for example `"timeout"` or `"connectionLost"`.
        public var error: String?

        enum CodingKeys: String, CodingKey {
            case startedDateTime, time, request, response, cache, timings, comment
            case requestId = "_requestId"
            case attempt = "_attempt"
            case fromCache = "_fromCache"
            case error = "_error"
        }
    }

    /// A request as sent.
    public struct Request: Codable, Sendable, Equatable {
        /// The method.
        public var method: String
        /// The absolute URL, query included.
        public var url: String
        /// `"HTTP/1.1"`: the transports do not report the version they used.
        public var httpVersion: String
        /// The cookies sent, values masked.
        public var cookies: [Cookie]
        /// The header fields sent.
        public var headers: [Field]
        /// The query's items, decoded.
        public var queryString: [Field]
        /// The body, for a request that has one.
        public var postData: PostData?
        /// `-1`: unknown.
        public var headersSize: Int
        /// The body's size in bytes, `0` without one.
        public var bodySize: Int
        /// A comment.
        public var comment: String?
    }

    /// A response as received.
    public struct Response: Codable, Sendable, Equatable {
        /// The status; `0` when the attempt failed before a response.
        public var status: Int
        /// The reason phrase of the status.
        public var statusText: String
        /// `"HTTP/1.1"`: the transports do not report the version they used.
        public var httpVersion: String
        /// The cookies set, values masked.
        public var cookies: [Cookie]
        /// The header fields received.
        public var headers: [Field]
        /// The body.
        public var content: Content
        /// The `Location` of a redirect, or the URL redirects led to; `""` otherwise.
        public var redirectURL: String
        /// `-1`: unknown.
        public var headersSize: Int
        /// The body's size on the wire; `-1` when it was compressed (only its decoded size is
        /// known), `0` for an answer of the cache.
        public var bodySize: Int
        /// A comment.
        public var comment: String?
    }

    /// A name and a value: a header field or a query item.
    public struct Field: Codable, Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String
        /// A comment.
        public var comment: String?
    }

    /// A cookie; CoreNetKit writes its value masked.
    public struct Cookie: Codable, Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String
        /// The path attribute.
        public var path: String?
        /// The domain attribute.
        public var domain: String?
        /// The expiry, as the server wrote it.
        public var expires: String?
        /// Whether it is `HttpOnly`.
        public var httpOnly: Bool?
        /// Whether it is `Secure`.
        public var secure: Bool?
        /// A comment.
        public var comment: String?
    }

    /// A request's body.
    public struct PostData: Codable, Sendable, Equatable {
        /// Its `Content-Type`.
        public var mimeType: String
        /// Its text (redacted; base64 when the comment says so; empty for a body streamed from a
        /// file or a sequence). HAR 1.2 lets a file give a form by its ``params`` alone: read from
        /// such a file, the text of a URL-encoded form is made from them, and is empty otherwise.
        public var text: String
        /// The fields of a form or multipart body, redacted; `nil` for any other body.
        public var params: [Param]? = nil
        /// A comment: `"base64"`, `"truncated"`.
        public var comment: String?

        enum CodingKeys: String, CodingKey {
            case mimeType, text, params, comment
        }

        init(mimeType: String, text: String, params: [Param]? = nil, comment: String? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.params = params
            self.comment = comment
        }

        /// Reads a body as HAR 1.2 gives it: a `text`, `params`, or both.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            mimeType = try container.decode(String.self, forKey: .mimeType)
            params = try container.decodeIfPresent([Param].self, forKey: .params)
            comment = try container.decodeIfPresent(String.self, forKey: .comment)
            text =
                try container.decodeIfPresent(String.self, forKey: .text) ?? Self.formText(params, mimeType: mimeType)
        }

        /// `params` as the text of a URL-encoded form when `mimeType` is one, else empty.
        static func formText(_ params: [Param]?, mimeType: String) -> String {
            guard let params, mimeType.lowercased().hasPrefix("application/x-www-form-urlencoded") else { return "" }
            return URLBuilder.encode(params.map { ($0.name, $0.value ?? "") })
        }
    }

    /// A field of a form or multipart request body.
    public struct Param: Codable, Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value, redacted; `nil` for a file.
        public var value: String?
        /// The name of the file a multipart part carries.
        public var fileName: String?
        /// The `Content-Type` of a multipart part.
        public var contentType: String?
        /// A comment.
        public var comment: String?
    }

    /// A response's body.
    public struct Content: Codable, Sendable, Equatable {
        /// The decoded body's size in bytes.
        public var size: Int
        /// Its `Content-Type`.
        public var mimeType: String
        /// Its text, redacted, cut at the recorder's limit; base64 when ``encoding`` says so.
        public var text: String?
        /// `"base64"` for a body that is not UTF-8 text.
        public var encoding: String?
        /// A comment: `"truncated"` when ``text`` holds only the start of the body.
        public var comment: String?
    }

    /// The cache's state; written empty.
    public struct Cache: Codable, Sendable, Equatable {
        /// A comment.
        public var comment: String?
    }

    /// Where an entry's time went, in milliseconds; `-1` for a part that does not apply or was
    /// not measured.
    public struct Timings: Codable, Sendable, Equatable {
        /// Before the request went to the transport (encoding, cookies).
        public var blocked: Double?
        /// Name resolution: `-1`, the transports do not report it.
        public var dns: Double?
        /// Connecting: `-1`, the transports do not report it.
        public var connect: Double?
        /// Sending: `0`, the transports do not report when the last byte left (``wait`` counts
        /// from the handover).
        public var send: Double
        /// From the handover to the transport to the response's head.
        public var wait: Double
        /// From the head to the end of the body.
        public var receive: Double
        /// TLS: `-1`, the transports do not report it.
        public var ssl: Double?
        /// A comment.
        public var comment: String?
    }
}
