//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields, in-memory data and files on disk.
///
/// Send it as ``ServerRequestParameter/multipart(_:)`` with `POST`, `PUT` or `PATCH`:
///
/// ```swift
/// var form = MultipartData()
/// form.append("Holiday", name: "title")
/// form.append(fileAt: videoURL, name: "video")                  // video/mp4, streamed from disk
/// form.append(thumbnail, name: "thumb", filename: "thumb.jpg")  // image/jpeg
///
/// ServerRequest(method: .post, baseUrl: API.base, relativeUrl: "/videos", parameters: .multipart(form))
/// ```
///
/// A body up to ``memoryThreshold`` bytes is assembled in memory; a larger one is written chunk by chunk to a file in
/// ``temporaryDirectory`` and uploaded from there with an exact `Content-Length`, the file removed when the request
/// ends (also on error or cancellation). The boundary is random and checked not to occur in any part.
///
/// Names and filenames may hold any characters: `"`, CR and LF are sent as `%22`, `%0D` and `%0A` (as browsers do)
/// and other text as UTF-8, so they can't break out of their header. A filename changed that way is also sent exactly
/// as `filename*=UTF-8''…` (RFC 8187), which most servers prefer. Files are read and the body built when the request
/// is sent; a missing or unreadable file ends it with ``BaseServerError/Code-swift.struct/fileAccess``, a bad header
/// with ``BaseServerError/Code-swift.struct/invalidRequest``.
public struct MultipartData: Sendable {
    /// The largest body assembled in memory, in bytes, unless a form says otherwise: 10 MB.
    public static let defaultMemoryThreshold = 10_000_000

    /// The parts, in the order they are sent.
    public var parts: [Part]
    /// The largest body, in bytes, assembled in memory; larger ones are streamed through a temporary file.
    public var memoryThreshold: Int
    /// Where a large body's temporary file is written; the system's temporary directory by default.
    public var temporaryDirectory: URL

    /// Creates a form with `parts`, in order (``append(_:name:)`` and its siblings add more).
    public init(
        _ parts: [Part] = [], memoryThreshold: Int = MultipartData.defaultMemoryThreshold,
        temporaryDirectory: URL = FileManager.default.temporaryDirectory
    ) {
        self.parts = parts
        self.memoryThreshold = memoryThreshold
        self.temporaryDirectory = temporaryDirectory
    }

    /// Appends a text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(.text(value, name: name))
    }

    /// Appends in-memory data; see ``Part/data(_:name:filename:mimeType:headers:)``.
    public mutating func append(
        _ data: Data, name: String, filename: String? = nil, mimeType: String? = nil,
        headers: [String: String] = [:]
    ) {
        parts.append(.data(data, name: name, filename: filename, mimeType: mimeType, headers: headers))
    }

    /// Appends a file read when the request is sent; see ``Part/file(_:name:filename:mimeType:headers:)``.
    public mutating func append(
        fileAt url: URL, name: String, filename: String? = nil, mimeType: String? = nil,
        headers: [String: String] = [:]
    ) {
        parts.append(.file(url, name: name, filename: filename, mimeType: mimeType, headers: headers))
    }
}

extension MultipartData {
    /// One part of a ``MultipartData`` body.
    public struct Part: Sendable {
        /// Where a part's bytes come from.
        public enum Content: Sendable {
            /// A text field, sent as UTF-8 without a `Content-Type`.
            case text(String)
            /// Bytes in memory.
            case data(Data)
            /// The contents of a local file, read when the request is sent.
            case file(URL)
        }

        /// The field name (`name` in `Content-Disposition`).
        public var name: String
        /// The filename (`filename` in `Content-Disposition`), if any.
        public var filename: String?
        /// The part's `Content-Type`; when `nil`, guessed from the filename's extension (``resolvedMimeType``).
        public var mimeType: String?
        /// More headers; not `Content-Disposition` or `Content-Type`, which name, filename and ``mimeType`` set.
        public var headers: [String: String]
        /// The part's bytes.
        public var content: Content

        /// Creates a part; prefer ``text(_:name:)``, ``data(_:name:filename:mimeType:headers:)``
        /// and ``file(_:name:filename:mimeType:headers:)``.
        public init(
            name: String, filename: String? = nil, mimeType: String? = nil, headers: [String: String] = [:],
            content: Content
        ) {
            self.name = name
            self.filename = filename
            self.mimeType = mimeType
            self.headers = headers
            self.content = content
        }

        /// A text field.
        public static func text(_ value: String, name: String) -> Part {
            Part(name: name, content: .text(value))
        }

        /// In-memory bytes typed `mimeType`, else by `filename`'s extension, else `application/octet-stream`.
        public static func data(
            _ data: Data, name: String, filename: String? = nil, mimeType: String? = nil,
            headers: [String: String] = [:]
        ) -> Part {
            Part(name: name, filename: filename, mimeType: mimeType, headers: headers, content: .data(data))
        }

        /// A local file, streamed from disk when the body is large; `filename` defaults to the
        /// file's name and the type to a guess from its extension.
        public static func file(
            _ url: URL, name: String, filename: String? = nil, mimeType: String? = nil,
            headers: [String: String] = [:]
        ) -> Part {
            Part(
                name: name, filename: filename ?? url.lastPathComponent, mimeType: mimeType, headers: headers,
                content: .file(url))
        }

        /// The `Content-Type` that is sent: ``mimeType``, else a guess from the filename's
        /// extension, else `application/octet-stream`; `nil` for text fields.
        public var resolvedMimeType: String? {
            if let mimeType { return mimeType }
            if case .text = content { return nil }
            return MIMEType.guess(forFilename: filename ?? "")
        }
    }
}

/// Guesses a MIME type from a filename's extension, alike on every platform (Linux lacks UniformTypeIdentifiers).
enum MIMEType {
    static let fallback = "application/octet-stream"

    /// The type for `filename`'s extension (case-insensitive), or `application/octet-stream`.
    static func guess(forFilename filename: String) -> String {
        guard let dot = filename.lastIndex(of: "."), dot != filename.startIndex else { return fallback }
        let pathExtension = filename[filename.index(after: dot)...].lowercased()
        return byExtension[pathExtension] ?? fallback
    }

    private static let byExtension: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "ics": "text/calendar", "vcf": "text/vcard",
        "js": "text/javascript", "mjs": "text/javascript", "json": "application/json",
        "geojson": "application/geo+json", "xml": "application/xml", "yaml": "application/yaml",
        "yml": "application/yaml", "rtf": "application/rtf", "pdf": "application/pdf",
        "wasm": "application/wasm",
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "bz2": "application/x-bzip2", "xz": "application/x-xz",
        "7z": "application/x-7z-compressed", "rar": "application/vnd.rar",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "heic": "image/heic", "heif": "image/heif", "avif": "image/avif",
        "svg": "image/svg+xml", "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff",
        "ico": "image/vnd.microsoft.icon",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "avi": "video/x-msvideo", "mkv": "video/x-matroska", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        "doc": "application/msword", "xls": "application/vnd.ms-excel", "ppt": "application/vnd.ms-powerpoint",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "epub": "application/epub+zip", "pages": "application/vnd.apple.pages",
        "ttf": "font/ttf", "otf": "font/otf", "woff": "font/woff", "woff2": "font/woff2",
    ]
}

/// The header block of each part, built so that no name, filename or value can end its line.
enum MultipartHeaders {
    /// `Content-Disposition`, `Content-Type` and the part's own headers (sorted by name), each ending in CRLF, then the
    /// empty line. Throws ``BaseServerError`` `invalidRequest` for a name, value or MIME type that could split the
    /// header, or a header the form owns.
    static func block(for part: MultipartData.Part) throws -> Data {
        var disposition = "form-data; name=\"" + quoted(part.name).text + "\""
        if let filename = part.filename {
            let fallback = quoted(filename)
            disposition += "; filename=\"" + fallback.text + "\""
            if !fallback.isExact { disposition += "; filename*=" + extendedValue(filename) }
        }
        var lines = ["Content-Disposition: " + disposition]
        if let mimeType = part.resolvedMimeType {
            guard !mimeType.isEmpty, RequestEncoder.isValidHeader(value: mimeType) else {
                throw BaseServerError.invalidRequest(
                    "the MIME type of the part \"\(quoted(part.name).text)\" is not allowed")
            }
            lines.append("Content-Type: " + mimeType)
        }
        for (name, value) in part.headers.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            let lowercased = name.lowercased()
            guard lowercased != "content-disposition", lowercased != "content-type" else {
                throw BaseServerError.invalidRequest(
                    "the part \"\(quoted(part.name).text)\" sets \(name) in headers; use its name, filename and mimeType"
                )
            }
            guard RequestEncoder.isValidHeader(name: name), RequestEncoder.isValidHeader(value: value) else {
                throw BaseServerError.invalidRequest(
                    "the part \"\(quoted(part.name).text)\" has a header name or value that is not allowed")
            }
            lines.append(name + ": " + value)
        }
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// `value` as the inside of a quoted-string that can't end its header: `"` → `%22`, CR → `%0D`, LF → `%0A`, other
    /// controls → `%XX` (HTML form encoding), `\` → `\\`, the rest UTF-8. `isExact` is false when a reader that only
    /// unquotes would not get `value` back.
    static func quoted(_ value: String) -> (text: String, isExact: Bool) {
        var text = String.UnicodeScalarView()
        var isExact = true
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x22, 0x00...0x1F, 0x7F:
                text.append(contentsOf: percentEncoded(UInt8(scalar.value)).unicodeScalars)
                isExact = false
            case 0x5C:
                text.append(contentsOf: "\\\\".unicodeScalars)
                isExact = false
            default:
                text.append(scalar)
            }
        }
        return (String(text), isExact)
    }

    /// `value` as an RFC 8187 extended value: `UTF-8''` then its UTF-8 bytes, those outside `attr-char` %-encoded.
    static func extendedValue(_ value: String) -> String {
        var result = "UTF-8''"
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
                UInt8(ascii: "&"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
                UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += percentEncoded(byte)
            }
        }
        return result
    }

    private static func percentEncoded(_ byte: UInt8) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        return "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
    }
}
