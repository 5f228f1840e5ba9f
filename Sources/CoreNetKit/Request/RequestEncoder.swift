//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Turns a prepared ``ServerRequest`` into the ``TransportRequest`` a transport sends.
enum RequestEncoder {
    /// Encodes `request`; a multipart body over its threshold goes to a `temporaryFiles` file (in memory without it).
    static func encode(
        _ request: ServerRequest, encoder: JSONEncoder, defaultTimeout: TimeInterval,
        temporaryFiles: TemporaryFiles? = nil
    ) throws -> TransportRequest {
        let parts = try parts(of: request, encoder: encoder)
        let url = try URLBuilder.url(base: request.baseUrl, relative: request.relativeUrl, query: parts.query)
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(request.headers.count)
        for (name, value) in request.headers {
            guard isValidHeader(name: name), isValidHeader(value: value) else {
                throw BaseServerError.invalidRequest("the header \"\(name)\" has a name or value that is not allowed")
            }
            fields.append((name, value))
        }
        let destination = request.downloadDestination ?? request.resumeData?.destination
        if let destination, !destination.isFileURL {
            throw BaseServerError.invalidRequest(
                "the download destination \(destination.absoluteString) is not a file URL")
        }
        if let partial = request.resumeData?.partialFileURL, !partial.isFileURL {
            throw BaseServerError.invalidRequest(
                "the resume data's partial file \(partial.absoluteString) is not a file URL")
        }
        var encoded = TransportRequest(
            method: request.method, url: url, headers: HTTPHeaders(sortingByName: consume fields),
            body: parts.body.map { .data($0) } ?? .none, timeout: request.timeout ?? defaultTimeout)
        if let file = request.rawBodyFile, request.rawBody == nil {
            encoded.body = try .file(file)
        }
        if let contentType = parts.contentType, !encoded.headers.contains("Content-Type") {
            encoded.headers["Content-Type"] = contentType
        }
        if let multipart = parts.multipart {
            let form = try MultipartEncoder(multipart).encode(temporaryFiles: temporaryFiles)
            switch form.body {
            case .memory(let data): encoded.body = .data(data)
            case .file(let url): encoded.body = try .file(url)
            }
            encoded.setValue(form.contentType, forHTTPHeaderField: "Content-Type")  // it names the boundary
        }
        return encoded
    }

    /// The URL `request` is sent to; see ``ServerRequest/url(encoder:)``.
    static func url(of request: ServerRequest, encoder: JSONEncoder) throws -> URL {
        let query = try parts(of: request, encoder: encoder).query
        return try URLBuilder.url(base: request.baseUrl, relative: request.relativeUrl, query: query)
    }

    private struct Parts {
        var query: [(String, String)] = []
        var multipart: MultipartData?
        var body: Data?
        var contentType: String?
    }

    /// Where `request`'s parameters go: the query, a body and its type, or a multipart form.
    private static func parts(of request: ServerRequest, encoder: JSONEncoder) throws -> Parts {
        if request.rawBody != nil || request.rawBodyFile != nil { return Parts(body: request.rawBody) }
        let inQuery = request.method.encodesParametersInQuery
        var parts = Parts()
        switch request.parameters {
        case .none:
            break
        case .query(let parameters),
            .formURLEncoded(let parameters) where inQuery:
            parts.query = URLBuilder.items(parameters)
        case .formURLEncoded(let parameters):
            parts.body = Data(URLBuilder.encode(URLBuilder.items(parameters)).utf8)
            parts.contentType = "application/x-www-form-urlencoded; charset=utf-8"
        case .jsonObject(let json) where inQuery:
            parts.query = try flatten(json)
        case .json(let value) where inQuery:
            parts.query = try flatten(try JSON(data: encodeJSON(value, encoder)))
        case .jsonObject(let json):
            parts.body = try encodeJSON(json, encoder)
            parts.contentType = "application/json; charset=utf-8"
        case .json(let value):
            parts.body = try encodeJSON(value, encoder)
            parts.contentType = "application/json; charset=utf-8"
        case .multipart(let form):
            guard !inQuery else {
                throw BaseServerError.invalidRequest(
                    "a multipart body needs POST, PUT or PATCH, not \(request.method.rawValue)")
            }
            parts.multipart = form
        }
        return parts
    }

    private static func encodeJSON(_ value: any Encodable, _ encoder: JSONEncoder) throws -> Data {
        do {
            return try encoder.encode(value)
        } catch {
            throw BaseServerError(
                code: .invalidRequest, message: "the body could not be encoded as JSON: \(error)",
                underlyingError: error)
        }
    }

    /// A JSON object's members as query items; arrays of scalars become repeated keys.
    private static func flatten(_ json: JSON) throws -> [(String, String)] {
        guard case .object(let object) = json else {
            throw BaseServerError.invalidRequest("only a JSON object can be sent as query parameters")
        }
        var items: [(String, String)] = []
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .array(let elements): for element in elements { items.append((key, try scalar(element, key: key))) }
            case .null: continue
            default: items.append((key, try scalar(value, key: key)))
            }
        }
        return items
    }

    private static func scalar(_ json: JSON, key: String) throws -> String {
        switch json {
        case .string(let value): return value
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        default:
            throw BaseServerError.invalidRequest("the parameter \"\(key)\" is nested and cannot go in a query string")
        }
    }

    /// Whether `name` can't split or inject header lines (visible ASCII, no `:`); also checks multipart parts.
    static func isValidHeader(name: String) -> Bool {
        // On the contiguous bytes when available: the UTF-8 view's iterator cost several times more per byte.
        func valid(_ bytes: some Collection<UInt8>) -> Bool {
            !bytes.isEmpty && !bytes.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: ":") || $0 >= 0x7F })
        }
        return name.utf8.withContiguousStorageIfAvailable(valid) ?? valid(name.utf8)
    }

    /// Whether `value` can't split or inject header lines: no CR, LF or NUL.
    static func isValidHeader(value: String) -> Bool {
        func valid(_ bytes: some Collection<UInt8>) -> Bool {
            !bytes.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 })
        }
        return value.utf8.withContiguousStorageIfAvailable(valid) ?? valid(value.utf8)
    }
}
