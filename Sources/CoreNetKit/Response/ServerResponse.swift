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

/// One HTTP response as the pipeline sees it: status, headers, raw body and where it came from.
///
/// The default mapping decodes the model straight from ``data``; ``json()`` parses the body as ``JSON`` when wanted.
public struct ServerResponse: Sendable {
    /// The HTTP status code.
    public let statusCode: Int
    /// The response headers (names compare case-insensitively).
    public let headers: HTTPHeaders
    /// The raw body; empty for `HEAD`, `204` and `304`.
    public let data: Data
    /// The request that was sent, as the transport got it.
    public let transportRequest: TransportRequest
    /// The request that was sent, as a Foundation `URLRequest` (built on each read).
    public var request: URLRequest { transportRequest.urlRequest }
    /// The final URL after redirects.
    public let url: URL?
    /// Time from sending the request to the complete response.
    public let duration: Duration
    /// Whether this response was read from the cache rather than the network.
    public let isFromCache: Bool
    /// The file a 2xx body was streamed to, for a ``ServerRequest/downloadDestination``; ``data`` is then empty.
    public let downloadedFileURL: URL?
    /// The pipeline configuration's decoder, so the default mapping doesn't read the locked configuration again.
    var decoder: JSONDecoder?

    /// Creates a response.
    public init(
        statusCode: Int, headers: HTTPHeaders, data: Data, request: URLRequest,
        url: URL? = nil, duration: Duration = .zero, isFromCache: Bool = false, downloadedFileURL: URL? = nil
    ) {
        self.init(
            statusCode: statusCode, headers: headers, data: data,
            transportRequest: TransportRequest(urlRequest: request),
            url: url, duration: duration, isFromCache: isFromCache, downloadedFileURL: downloadedFileURL)
    }

    /// Creates a response to `transportRequest`.
    public init(
        statusCode: Int, headers: HTTPHeaders, data: Data, transportRequest: TransportRequest,
        url: URL? = nil, duration: Duration = .zero, isFromCache: Bool = false, downloadedFileURL: URL? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.data = data
        // Read before the request moves into place: read after, it would be copied for it.
        self.url = url ?? transportRequest.url
        self.transportRequest = transportRequest
        self.duration = duration
        self.isFromCache = isFromCache
        self.downloadedFileURL = downloadedFileURL
    }

    /// Creates a response to `request` that no transport produced, for an ``Interceptor`` that answers itself (a mock).
    ///
    /// ```swift
    /// return ServerResponse(statusCode: 200, data: Data(#"{"id": 1}"#.utf8), for: request)
    /// ```
    public init(statusCode: Int, headers: HTTPHeaders = [:], data: Data = Data(), for request: ServerRequest) {
        let url = (try? request.url(encoder: JSONEncoder())) ?? request.baseUrl
        self.init(
            statusCode: statusCode, headers: headers, data: data,
            transportRequest: TransportRequest(method: request.method, url: url, headers: HTTPHeaders(request.headers)))
    }

    /// The body parsed as JSON, again on each call: keep the result to reuse it.
    ///
    /// Throws ``BaseServerError`` ``BaseServerError/Code-swift.struct/cantMapping`` when the body is not JSON.
    public func json() throws -> JSON {
        do {
            return try JSON(data: data)
        } catch {
            throw BaseServerError.cantMapping(
                keyPath: "<root>", reason: "the body is not valid JSON", underlying: error)
        }
    }

    /// Whether the status is in `200..<300`.
    public var isSuccessStatus: Bool { (200..<300).contains(statusCode) }

    /// The body parsed as JSON if it looks like a JSON object or array, else `nil`.
    var jsonIfObject: JSON? {
        guard let first = data.first(where: { !$0.isWhitespaceByte }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        else { return nil }
        return try? json()
    }
}

extension UInt8 {
    var isWhitespaceByte: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}

/// A model for responses without a body (`204 No Content`, `HEAD`).
public struct EmptyResponse: Decodable, Sendable, Hashable, EmptyResponseRepresentable {
    /// Creates the empty model.
    public init() {}

    public static var empty: EmptyResponse { EmptyResponse() }
}

/// A model standing for an empty body: the default mapping returns ``empty`` for an empty body or status 204.
public protocol EmptyResponseRepresentable {
    /// The model of an empty body.
    static var empty: Self { get }
}

/// The default mapping of a response body to a model.
enum ModelDecoding {
    static let keyPathKey = CodingUserInfoKey(rawValue: "CoreNetKit.keyPath")!

    static func decode<Model>(
        _ type: Model.Type, from response: ServerResponse, keyPath: String?, decoder: JSONDecoder
    ) throws -> Model {
        if let fileURL = response.downloadedFileURL {
            if Model.self == DownloadedFile.self { return try DownloadedFile(fileURL, response: response) as! Model }
            if Model.self == URL.self { return fileURL as! Model }
        } else if Model.self == DownloadedFile.self {
            throw BaseServerError.cantMapping(keyPath: "<root>", reason: "the request has no downloadDestination")
        }
        let data = response.data
        // The body first, the conformance (a run-time lookup) only when it is empty: most models have a body.
        if response.statusCode == 204 || data.withUnsafeBytes({ $0.allSatisfy(\.isWhitespaceByte) }),
            let empty = Model.self as? any EmptyResponseRepresentable.Type
        {
            return empty.empty as! Model  // safe: `empty` is `Model.Type`
        }
        if Model.self == Data.self { return data as! Model }
        if Model.self == String.self, !(response.headers["Content-Type"] ?? "").contains("json") {
            return String(decoding: data, as: UTF8.self) as! Model
        }
        guard let decodable = Model.self as? any Decodable.Type else {
            throw BaseServerError.cantMapping(
                keyPath: keyPath ?? "<root>",
                reason: "\(Model.self) is not Decodable; override handle(serverResponse:)")
        }
        if data.isEmpty {
            throw BaseServerError.cantMapping(keyPath: keyPath ?? "<root>", reason: "the body is empty")
        }
        do {
            return try decodeValue(decodable, as: Model.self, data: data, keyPath: keyPath, decoder: decoder)
        } catch let error as DecodingError {
            throw mappingError(error, keyPath: keyPath)
        }
    }

    /// Decodes `T`, which is `Model`, as `Model`: returning `T` through the opened existential would box and recast it.
    private static func decodeValue<T: Decodable, Model>(
        _ type: T.Type, as model: Model.Type, data: Data, keyPath: String?, decoder: JSONDecoder
    ) throws -> Model {
        guard let keyPath, !keyPath.isEmpty else { return try decoder.decode(T.self, from: data) as! Model }
        return try decodeValue(type, data: data, under: keyPath, decoder: decoder) as! Model
    }

    /// The key-path case: the model decoded from the member at `keyPath` (dot-separated) of the JSON object.
    private static func decodeValue<T: Decodable>(
        _ type: T.Type, data: Data, under keyPath: String, decoder: JSONDecoder
    ) throws -> T {
        let keyed = JSONDecoder()
        keyed.dateDecodingStrategy = decoder.dateDecodingStrategy
        keyed.dataDecodingStrategy = decoder.dataDecodingStrategy
        keyed.keyDecodingStrategy = decoder.keyDecodingStrategy
        keyed.nonConformingFloatDecodingStrategy = decoder.nonConformingFloatDecodingStrategy
        keyed.userInfo = decoder.userInfo
        keyed.userInfo[keyPathKey] = keyPath.split(separator: ".").map(String.init)
        return try keyed.decode(KeyPathDecoded<T>.self, from: data).value
    }

    private static func mappingError(_ error: DecodingError, keyPath: String?) -> BaseServerError {
        let requested = keyPath ?? "<root>"
        switch error {
        case .keyNotFound(let key, let context):
            return .cantMapping(
                keyPath: render(context.codingPath + [key]),
                reason: "the key \"\(key.stringValue)\" is missing (reading \"\(requested)\")", underlying: error)
        case .typeMismatch(let type, let context):
            return .cantMapping(
                keyPath: render(context.codingPath, or: requested),
                reason: "expected \(type): \(context.debugDescription)", underlying: error)
        case .valueNotFound(let type, let context):
            return .cantMapping(
                keyPath: render(context.codingPath, or: requested),
                reason: "expected \(type) but found null", underlying: error)
        case .dataCorrupted(let context):
            let reason = context.codingPath.isEmpty ? "the body is not valid JSON" : context.debugDescription
            return .cantMapping(keyPath: render(context.codingPath, or: requested), reason: reason, underlying: error)
        @unknown default:
            return .cantMapping(keyPath: requested, reason: "\(error)", underlying: error)
        }
    }

    /// A coding path as `response.items[2].name`.
    static func render(_ path: [any CodingKey], or fallback: String = "<root>") -> String {
        guard !path.isEmpty else { return fallback }
        var result = ""
        for key in path {
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                if !result.isEmpty { result += "." }
                result += key.stringValue
            }
        }
        return result
    }
}

/// Decodes `Value` under the key path in the decoder's user info, in one pass over the body.
private struct KeyPathDecoded<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        let path = decoder.userInfo[ModelDecoding.keyPathKey] as? [String] ?? []
        guard let last = path.last else {
            value = try Value(from: decoder)
            return
        }
        var container = try decoder.container(keyedBy: PathKey.self)
        for component in path.dropLast() {
            container = try container.nestedContainer(keyedBy: PathKey.self, forKey: PathKey(component))
        }
        value = try container.decode(Value.self, forKey: PathKey(last))
    }
}

private struct PathKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
