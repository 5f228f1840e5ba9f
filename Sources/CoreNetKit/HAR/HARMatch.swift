//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What a HARReplayTransport matches a request by: its method, its URL without the query, the
/// query's items in sorted order, and its body; each redacted as the recorder redacts them, so a
/// request and its recording compare equal whatever credentials each carried.
struct HARMatch: CustomStringConvertible {
    let method: String
    /// The URL up to its query.
    let target: String
    let query: [String]
    /// The body's redacted text; `nil` when there is none or bodies are not compared.
    let body: String?

    init(_ request: TransportRequest, matchesBody: Bool) {
        var body: String?
        if matchesBody {
            // No body compares as empty text; `nil` means bodies are not compared.
            let secrets = LogRedactor.secretValues(of: request)
            body =
                MonitoredExchange.Body(request.body, headers: request.headers, secrets: secrets, limit: Int.max)?.text
                ?? ""
        }
        self.init(method: request.method.rawValue, url: LogRedactor.redact(url: request.url), body: body)
    }

    /// What `entry` recorded, its URL redacted as a request's is: a file written by another tool
    /// (a browser) holds the credentials the kit's recorder masks.
    private init(recorded entry: HTTPArchive.Entry) {
        let url = entry.request.url
        self.init(
            method: entry.request.method,
            url: URL(string: url).map(LogRedactor.redact(url:)) ?? LogRedactor.redact(urlText: url))
    }

    private init(method: String, url: String, body: String? = nil) {
        self.method = method.uppercased()
        self.target = String(url[..<(url.firstIndex(of: "?") ?? url.endIndex)])
        self.query = HTTPArchive.Request.queryItems(of: url).map { $0.name + "=" + $0.value }.sorted()
        self.body = body
    }

    var description: String { method + " " + target + (query.isEmpty ? "" : "?" + query.joined(separator: "&")) }

    /// Whether `entry` recorded this request. A recorded body cut at the recorder's limit
    /// matches a body that starts with it.
    func matches(_ entry: HTTPArchive.Entry) -> Bool {
        let recorded = HARMatch(recorded: entry)
        guard recorded.method == method, recorded.target == target, recorded.query == query else { return false }
        guard let body else { return true }
        guard let postData = entry.request.postData else { return body.isEmpty }
        if postData.comment?.contains("truncated") == true { return body.hasPrefix(postData.text) }
        if postData.text == body { return true }
        // Redacted as the request's body is: another tool's file holds the secrets the kit's
        // recorder masks (a JSON body's `password`, a form's `token`).
        let bytes = Data(postData.text.utf8)
        let text =
            MonitoredExchange.Body(
                bytes, size: bytes.count, headers: ["Content-Type": postData.mimeType], secrets: [], limit: Int.max
            )?.text ?? ""
        // A form compares by its fields, in any order: `%20` or `+`, any case of escapes.
        if postData.mimeType.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            return Self.formFields(text) == Self.formFields(body)
        }
        // JSON compares by value: the order of an object's members is not the request's.
        guard let recorded = try? JSON(data: Data(text.utf8)) else { return false }
        return (try? JSON(data: Data(body.utf8))) == recorded
    }

    /// The fields of the text of a URL-encoded form, decoded, in sorted order (as a query's).
    static func formFields(_ text: String) -> [String] {
        HTTPArchive.Request.queryItems(of: "?" + text.replacingOccurrences(of: "#", with: "%23"))
            .map { $0.name + "=" + $0.value }.sorted()
    }

    /// The method and URL of the (at most three) entries of `archive` nearest to this request,
    /// nearest first: fewest characters to change in "METHOD URL".
    func closest(in archive: HTTPArchive) -> [String] {
        let wanted = Array(description.utf8)
        var seen: Set<String> = []
        let recorded = archive.log.entries.compactMap { entry -> String? in
            let text = HARMatch(recorded: entry).description
            return seen.insert(text).inserted ? text : nil
        }
        let ranked = recorded.map { (text: $0, distance: Self.distance(wanted, Array($0.utf8))) }
        return ranked.sorted { $0.distance < $1.distance }.prefix(3).map(\.text)
    }

    /// The edit distance between `a` and `b`.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
