//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Everything needed to send one HTTP request: a `Sendable` value built by
/// ``BaseServerRequest/createAsyncServerRequest()``.
///
/// ```swift
/// ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/orders",
///               parameters: .query(["skip": .int(0), "take": .int(20)]))
/// ```
public struct ServerRequest: Sendable {
    /// The HTTP method.
    public var method: HTTPMethod
    /// The base URL, for example `https://api.example.com/v1`.
    public var baseUrl: URL
    /// The path below ``baseUrl``, for example `/orders/7`; it may carry a query. It may not
    /// change the scheme or host: such a value ends in ``BaseServerError/Code-swift.struct/invalidRequest``.
    public var relativeUrl: String
    /// Headers of this request; they override headers that preparators set before them.
    public var headers: [String: String]
    /// Parameters and how they are encoded.
    public var parameters: ServerRequestParameter
    /// The request's timeout in seconds; `nil` uses the configuration's.
    public var timeout: TimeInterval?
    /// How the cache is used.
    public var cachePolicy: CachePolicy
    /// An identifier for ``TaskPool``; a request whose id is in flight joins it. `nil` generates one.
    public var requestId: String?
    /// Whether the configuration's ``AccessSafeRequestManager`` authorizes this request (adds the token, refreshes it
    /// on rejection and replays); `true` by default, no effect without a manager. Set `false` for login, refresh and
    /// public endpoints.
    public var requiresAuthorization: Bool
    /// When set, a successful response's body is streamed to this file URL instead of memory, and the model can be a
    /// ``DownloadedFile`` or `URL` (see ``DownloadedFile`` for what happens to the file on failure).
    public var downloadDestination: URL?
    /// Whether a failed or cancelled download keeps the bytes that arrived, so it can be resumed: the error then
    /// carries ``BaseServerError/resumeData`` and ``ActiveRequestContext/cancel(producingResumeData:)`` hands it back.
    /// `false` by default: nothing of a failed download stays on disk. See ``DownloadResumeData``.
    public var keepsPartialDownload: Bool
    /// Resume data of an earlier attempt (``DownloadResumeData``): the download goes on from its bytes and keeps the
    /// partial file if this attempt fails too; without ``downloadDestination`` it goes to the data's destination.
    public var resumeData: DownloadResumeData? {
        get { resumeBox?.value }
        set { resumeBox = newValue.map(Box.init) }
    }
    /// Out of line: most requests carry none, and every stage's frame holds a copy of the request.
    private var resumeBox: Box<DownloadResumeData>?
    /// When and how often this request is sent again after a failure; `nil` (default) uses
    /// ``NetworkConfiguration/retryPolicy``, ``RetryPolicy/never`` turns retrying off for this request.
    public var retryPolicy: RetryPolicy? {
        get { retryBox?.value }
        set { retryBox = newValue.map(Box.init) }
    }
    /// Out of line, like the resume data: most requests bring none, and a policy is 112 bytes.
    private var retryBox: Box<RetryPolicy>?
    /// Whether the request carries resume data (without copying it out).
    var hasResumeData: Bool { resumeBox != nil }
    /// Which attempt this is, from 1; the retry stage (or a stage of yours that resends) counts it up.
    public var attempt = 1
    /// How many attempts there can be at most; 1 unless a retrying stage says otherwise.
    public var attemptCount = 1
    /// A body sent as is, with the `Content-Type` of ``headers``; set only by adapters inside
    /// the library (the OpenAPI client transport). It replaces what ``parameters`` would encode.
    var rawBody: Data?
    /// A file whose contents are sent as the body, like ``rawBody`` (set by the same adapters).
    var rawBodyFile: URL?
    /// Where a 2xx response body goes as it arrives instead of into the response.
    var responseBodyStream: ResponseBodyStream?

    /// Whether the response body goes to a reader as it arrives (``ResponseStream``, the OpenAPI client transport)
    /// rather than into ``ServerResponse/data``, so a stage has nothing of it to keep.
    public var streamsResponseBody: Bool { responseBodyStream != nil }

    /// Whether a streamed `2xx` body began to reach its reader: then it must not be resent (two responses would mix).
    public var hasStartedStreaming: Bool { responseBodyStream?.hasSurfacedHead == true }

    /// Creates a request description.
    public init(
        method: HTTPMethod,
        baseUrl: URL,
        relativeUrl: String = "",
        headers: [String: String] = [:],
        parameters: ServerRequestParameter = .none,
        timeout: TimeInterval? = nil,
        cachePolicy: CachePolicy = .serverOnly,
        requestId: String? = nil,
        requiresAuthorization: Bool = true,
        downloadDestination: URL? = nil,
        retryPolicy: RetryPolicy? = nil,
        keepsPartialDownload: Bool = false,
        resumeData: DownloadResumeData? = nil
    ) {
        self.method = method
        self.baseUrl = baseUrl
        self.relativeUrl = relativeUrl
        self.headers = headers
        self.parameters = parameters
        self.timeout = timeout
        self.cachePolicy = cachePolicy
        self.requestId = requestId
        self.requiresAuthorization = requiresAuthorization
        self.downloadDestination = downloadDestination
        self.retryBox = retryPolicy.map(Box.init)
        self.keepsPartialDownload = keepsPartialDownload
        self.resumeData = resumeData
    }
}

/// A value of a request kept out of line (``ServerRequest/resumeData``, ``ServerRequest/retryPolicy``).
private final class Box<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The URL of a request, decided in one place.
extension ServerRequest {
    /// The URL this request is sent to: base URL, relative URL with its query, then its parameters' query items. Every
    /// reader (transport, cache key, logs, monitors, errors) uses it. Throws `invalidRequest` if it can't be built.
    func url(encoder: JSONEncoder) throws -> URL {
        try RequestEncoder.url(of: self, encoder: encoder)
    }

    /// ``url(encoder:)`` redacted for reports; if it can't be built, the base and relative URL, redacted.
    func reportedURL(encoder: JSONEncoder) -> String {
        if let url = try? url(encoder: encoder) { return LogRedactor.redact(url: url) }
        return LogRedactor.redact(urlText: baseUrl.absoluteString + relativeUrl)
    }
}
