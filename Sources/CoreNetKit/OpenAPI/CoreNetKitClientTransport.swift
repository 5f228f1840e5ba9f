//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// An apple/swift-openapi-runtime `ClientTransport` that sends a swift-openapi-generator client's requests through
/// CoreNetKit's chain (the package trait `OpenAPI`), with the configuration's ``AccessSafeRequestManager``,
/// ``RetryPolicy``, cache for GETs (``getCachePolicy``), ``NetworkConfiguration/monitors``, interceptors and
/// ``TaskPool``.
///
/// ```swift
/// let client = Client(
///     serverURL: try Servers.Server1.url(),
///     transport: CoreNetKitClientTransport(configuration: apiConfiguration))
/// let greeting = try await client.getGreeting(query: .init(name: "Ann")).ok.body.json
/// ```
///
/// **Statuses.** Every status goes to the generated client, which maps it: the configuration's validators and error
/// mappers are not used. A `401` still goes through the token stage, and retryable statuses through the retry stage.
///
/// **Bodies.** A request body of known length up to 1 MiB is sent from memory; any other is written as it comes to an
/// owner-only scratch file in ``temporaryDirectory`` and sent from it (so retries and token replays resend it), removed
/// when the request ends. ``maximumBodySize``, when set, bounds either.
///
/// A `2xx` response body is streamed: ``send(_:body:baseURL:operationID:)`` returns once the final response's head is
/// known, with a single-pass `HTTPBody` whose length is known from `Content-Length` (without `Content-Encoding`). The
/// request runs in its own Task until the body has arrived; reading past its end throws the error the request ended
/// with. The body is pulled as the client reads, as a ``ResponseStream`` is: about 1 MiB waits for a slow reader, then
/// `AsyncHTTPClientTransport` stops reading the socket (``URLSessionTransport`` on Linux cannot pause: its bound is 64
/// × ``URLSessionTransport/bodyBufferLimit``). Other statuses arrive whole (the token and retry stages need all of it).
/// A streamed response is not retried once its body has begun, and monitors and the logger see it with an empty body. A
/// `GET` is streamed only without a ``NetworkConfiguration/cacheAdapter`` (the cache needs the whole body, even under
/// ``CachePolicy/serverOnly``). A `HEAD`, a `204` and a `Content-Length: 0` answer have no body.
///
/// **Errors and cancellation.** A failure throws the request's ``BaseServerError``, which the generated client wraps in
/// `ClientError` (as `underlyingError`). Cancelling the awaiting Task, cancelling the Task reading a streamed body, or
/// dropping the body before its end cancels the request (``BaseServerError`` `cancelled`); a cancelled read returns
/// once the request has ended.
public struct CoreNetKitClientTransport: ClientTransport {
    /// The configuration every request is sent with (its validators are not used).
    public let configuration: NetworkConfiguration
    /// The cache policy of `GET` requests; other methods always use ``CachePolicy/serverOnly``.
    public let getCachePolicy: CachePolicy
    /// The largest request body sent, in bytes; a larger one fails with
    /// ``BaseServerError/Code-swift.struct/invalidRequest``. `nil`: no limit (only bodies up to 1 MiB are held in
    /// memory anyway).
    public let maximumBodySize: Int?
    /// Where request bodies sent from a scratch file are written.
    public let temporaryDirectory: URL

    /// Creates a transport that sends through `configuration` (by default ``NetworkConfiguration/default`` as it is
    /// now); the other parameters set the properties of the same names.
    public init(
        configuration: NetworkConfiguration = .default, getCachePolicy: CachePolicy = .serverOnly,
        maximumBodySize: Int? = nil, temporaryDirectory: URL = FileManager.default.temporaryDirectory
    ) {
        var configuration = configuration
        configuration.validators = []
        self.configuration = configuration
        self.getCachePolicy = getCachePolicy
        self.maximumBodySize = maximumBodySize
        self.temporaryDirectory = temporaryDirectory
    }

    /// Sends `request` through the configuration's chain and returns the server's answer: at the head for a streamed
    /// `2xx` body, else once it all arrived. The request runs in its own Task, inheriting the caller's priority and
    /// task-local values.
    ///
    /// - Throws: the request's ``BaseServerError`` (`cancelled` when the Task was cancelled); `invalidRequest` when the
    ///   body cannot be read or exceeds ``maximumBodySize``; `fileAccess` when its scratch file cannot be written.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let files = TemporaryFiles()
        var serverRequest = Self.serverRequest(request, baseURL: baseURL, getCachePolicy: getCachePolicy)
        do {
            if let body {
                try await Self.attach(
                    body, to: &serverRequest, maximumBodySize: maximumBodySize, files: files,
                    directory: temporaryDirectory)
            }
        } catch {
            files.close()
            throw error
        }
        guard Self.streamsResponse(of: serverRequest, configuration: configuration) else {
            defer { files.close() }
            return Self.httpResponse(
                try await ServerResponseRequest(serverRequest, configuration: configuration).performAsync())
        }
        let stream = ResponseBodyStream()
        serverRequest.responseBodyStream = stream
        let call = ServerResponseRequest(serverRequest, configuration: configuration)
        stream.attach(
            Task {
                let result: Result<ServerResponse, any Error>
                do { result = .success(try await call.performAsync()) } catch { result = .failure(error) }
                files.close()  // before the reader sees the end
                stream.finish(result)
            })
        switch try await stream.answer() {
        case .complete(let response):
            return Self.httpResponse(response)
        case .streaming(let statusCode, let headers):
            let body = HTTPBody(
                StreamedResponseBody(stream), length: Self.bodyLength(headers), iterationBehavior: .single)
            return (Self.httpResponse(statusCode: statusCode, headers: headers), body)
        }
    }

    /// Whether `request`'s 2xx body is streamed: not for a `HEAD`, nor a `GET` the cache stage may answer or store.
    static func streamsResponse(of request: ServerRequest, configuration: NetworkConfiguration) -> Bool {
        switch request.method {
        case .head: false
        case .get: request.cachePolicy == .serverOnly && configuration.cacheAdapter == nil
        default: true
        }
    }

    static func serverRequest(_ request: HTTPRequest, baseURL: URL, getCachePolicy: CachePolicy) -> ServerRequest {
        // Repeated fields joined as `HTTPHeaders.dictionary` joins them (`Cookie` with "; ").
        let fields = request.headerFields.filter { $0.name != .contentLength }
        let headers = HTTPHeaders(fields.map { (name: $0.name.canonicalName, value: $0.value) }).dictionary
        let method = HTTPMethod(rawValue: request.method.rawValue)
        return ServerRequest(
            method: method, baseUrl: baseURL, relativeUrl: request.path ?? "", headers: headers,
            cachePolicy: method == .get ? getCachePolicy : .serverOnly)
    }

    static func httpResponse(_ response: ServerResponse) -> (HTTPResponse, HTTPBody?) {
        let body: HTTPBody? = response.data.isEmpty ? nil : HTTPBody(response.data)
        return (httpResponse(statusCode: response.statusCode, headers: response.headers), body)
    }

    static func httpResponse(statusCode: Int, headers: HTTPHeaders) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return HTTPResponse(status: .init(code: statusCode), headerFields: fields)
    }

    /// A streamed body's `Content-Length`, unless a `Content-Encoding` means the transport decodes it to another
    /// length.
    static func bodyLength(_ headers: HTTPHeaders) -> HTTPBody.Length {
        let encoding = headers["Content-Encoding"]?.trimmingHTTPWhitespace.lowercased()
        guard encoding == nil || encoding == "identity", let text = headers["Content-Length"],
            let length = Int64(text.trimmingHTTPWhitespace), length >= 0
        else { return .unknown }
        return .known(length)
    }
}

#endif
