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

/// Bodies: the one entry point every logged body goes through.
extension LogRedactor {
    static let bodyLimit = 4096

    /// `body` as text with token-like JSON, form and `multipart/form-data` fields replaced by ``mask``; any other
    /// body as text cut at 4 KiB.
    public static func redact(body: Data) -> String {
        redact(body: body, contentType: nil, secrets: [])
    }

    /// Also recognises multipart by `contentType` or its first line (files shown by size only), and masks every
    /// value of `secrets` (what the request sent) wherever it appears.
    static func redact(body: Data, contentType: String?, secrets: [String]) -> String {
        if let text = redactStructured(body: body, contentType: contentType, secrets: secrets) { return text }
        let prefix = String(decoding: body.prefix(bodyLimit), as: UTF8.self)
        return masking(secrets, in: body.count > bodyLimit ? prefix + "…" : prefix)
    }

    /// `nil` unless `body` reads as a form (`a=b&c=d`, no whitespace); ignores `Content-Type` so a mislabelled form
    /// never leaks.
    static func redact(form body: Data) -> String? {
        guard !body.isEmpty, body.count <= 1 << 20 else { return nil }
        let text = String(decoding: body, as: UTF8.self)
        guard text.contains("="), !text.contains(where: { $0.isWhitespace }) else { return nil }
        let redacted = formItems(text).map { item -> String in
            guard item.rawValue != nil, isSecret(name: decodeFormComponent(item.rawName)) else {
                return item.rawName + (item.rawValue.map { "=" + $0 } ?? "")
            }
            return item.rawName + "=" + mask
        }.joined(separator: "&")
        return redacted.count > bodyLimit ? String(redacted.prefix(bodyLimit)) + "…" : redacted
    }

    static func redact(json: JSON) -> JSON {
        switch json {
        case .object(let object):
            var result: [String: JSON] = [:]
            for (key, value) in object {
                result[key] = isSecret(name: key) ? .string(mask) : redact(json: value)
            }
            return .object(result)
        case .array(let array): return .array(array.map(redact(json:)))
        default: return json
        }
    }

    /// A multipart body is logged by size only: its files are binary and may be large.
    static func loggedBody(of request: URLRequest) -> String? {
        guard let body = request.httpBody else { return nil }
        if let type = request.value(forHTTPHeaderField: "Content-Type"), type.lowercased().hasPrefix("multipart/") {
            return "<multipart body, \(body.count) bytes>"
        }
        return redact(body: body)
    }

    // MARK: Multipart

    /// The `boundary` parameter of a `multipart/…` content type, else the first line of a body starting `--<boundary>`.
    static func multipartBoundary(contentType: String?, body: Data) -> String? {
        if let contentType, startsCaseInsensitive(contentType, with: "multipart/"),
            let boundary = parameter("boundary", in: contentType)
        {
            return boundary
        }
        // Two bytes compared as such: `starts(with:)` over `Data` goes through its iterator.
        guard body.count >= 2, body[body.startIndex] == UInt8(ascii: "-"),
            body[body.startIndex + 1] == UInt8(ascii: "-"),
            let end = body.prefix(200).firstIndex(of: UInt8(ascii: "\r"))
        else { return nil }
        let line = String(decoding: body[body.startIndex + 2..<end], as: UTF8.self)
        return line.isEmpty || line.contains(" ") ? nil : line
    }

    /// One line per part, its content as `shown(_:secrets:)` says or its size.
    private static func redact(multipart body: Data, boundary: String, secrets: [String]) -> String {
        let text = multipartParts(body, boundary: boundary).map { part in
            var line = "[part name=\"\(part.name ?? "")\""
            if let filename = part.filename { line += " filename=\"\(filename)\"" }
            if let type = part.contentType { line += " type=\"\(type)\"" }
            return line + "] " + (shown(part, secrets: secrets) ?? "<\(part.content.count) bytes>")
        }.joined(separator: "\n")
        return text.count > bodyLimit ? String(text.prefix(bodyLimit)) + "…" : text
    }

    /// The fields of a form or multipart `body`, decoded and redacted as logs show them (a file's value `nil`); `nil`
    /// for any other body.
    static func parameters(of body: Data, contentType: String?, secrets: [String]) -> [MonitoredExchange.Parameter]? {
        if let boundary = multipartBoundary(contentType: contentType, body: body) {
            return multipartParts(body, boundary: boundary).map { part in
                MonitoredExchange.Parameter(
                    name: part.name ?? "", value: shown(part, secrets: secrets), fileName: part.filename,
                    contentType: part.contentType)
            }
        }
        guard let contentType, contentType.lowercased().contains("x-www-form-urlencoded"), body.count <= 1 << 20 else {
            return nil
        }
        return formItems(String(decoding: body, as: UTF8.self)).filter { !$0.rawName.isEmpty }.map { item in
            let name = decodeFormComponent(item.rawName)
            let value = isSecret(name: name) ? mask : masking(secrets, in: decodeFormComponent(item.rawValue ?? ""))
            return MonitoredExchange.Parameter(name: name, value: value, fileName: nil, contentType: nil)
        }
    }

    /// Masked when its name is secret, redacted as a body of its own type when text; `nil` for a file or binary.
    private static func shown(_ part: LoggedPart, secrets: [String]) -> String? {
        if let name = part.name, isSecret(name: name) { return mask }
        guard part.filename == nil, part.isText, String(validating: part.content, as: UTF8.self) != nil else {
            return nil
        }
        return redact(body: Data(part.content), contentType: part.contentType, secrets: secrets)
    }

    struct LoggedPart {
        var name: String?
        var filename: String?
        var contentType: String?
        var content: [UInt8]
        var isText: Bool {
            guard let contentType = contentType?.lowercased() else { return true }
            return contentType.hasPrefix("text/") || contentType.contains("json") || contentType.contains("form")
        }
    }

    /// Split into headers and content at the first empty line; a body that does not parse gives no parts.
    static func multipartParts(_ body: Data, boundary: String) -> [LoggedPart] {
        let bytes = [UInt8](body.prefix(1 << 20))
        let delimiter = Array("--\(boundary)".utf8)
        let starts = bytes.ranges(of: delimiter).map(\.lowerBound)
        var parts: [LoggedPart] = []
        for (position, start) in starts.enumerated() where position + 1 < starts.count {
            var chunk = Array(bytes[start + delimiter.count..<starts[position + 1]])
            if chunk.starts(with: [13, 10]) { chunk.removeFirst(2) }
            if chunk.count >= 2, chunk[chunk.count - 2] == 13, chunk[chunk.count - 1] == 10 { chunk.removeLast(2) }
            let head: String
            var part: LoggedPart
            if chunk.starts(with: [13, 10]) {  // no headers: the content follows the blank line
                head = ""
                part = LoggedPart(content: Array(chunk.dropFirst(2)))
            } else if let split = chunk.firstRange(of: [13, 10, 13, 10])?.lowerBound {
                head = String(decoding: chunk[..<split], as: UTF8.self)
                part = LoggedPart(content: Array(chunk[(split + 4)...]))
            } else {
                continue
            }
            for line in head.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    part.name = parameter("name", in: line)
                    part.filename = parameter("filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    part.contentType = String(line.dropFirst("content-type:".count)).trimmingCharacters(
                        in: .whitespaces)
                }
            }
            parts.append(part)
        }
        return parts
    }

    /// The quoted or bare value of `name=` in a header line.
    private static func parameter(_ name: String, in line: String) -> String? {
        for piece in line.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    /// `nil` for a body that is not multipart, JSON or a form (the caller masks or encodes its text itself).
    static func redactStructured(body: Data, contentType: String?, secrets: [String]) -> String? {
        let text: String
        if let boundary = multipartBoundary(contentType: contentType, body: body) {
            text = redact(multipart: body, boundary: boundary, secrets: secrets)
        } else if let json = redactJSON(body) {
            text = json
        } else if let json = try? JSON(data: body), let data = try? redact(json: json).encoded() {
            // What JSONDecoder reads beyond the grammar (a byte-order mark), parsed and written again.
            text = String(decoding: data, as: UTF8.self)
        } else if let form = redact(form: body) {
            text = form
        } else {
            return nil
        }
        return masking(secrets, in: text)
    }

    /// Whether a field of `body` may have a name ``isSecret(name:)`` matches: it holds `token`, `key`, `password`,
    /// `secret`, `sig`, `authorization` or `cookie` in any case, or an escape (`\u`, `%`) that could spell one.
    static func mayNameSecret(_ body: Data) -> Bool {
        body.withUnsafeBytes { bytes in
            Self.secretWordStarts.withUnsafeBufferPointer { starts in
                func spells(_ word: StaticString, at index: Int) -> Bool {
                    guard index + word.utf8CodeUnitCount <= bytes.count else { return false }
                    for offset in 1..<word.utf8CodeUnitCount
                    where bytes[index + offset] | 0x20 != word.utf8Start[offset] {
                        return false
                    }
                    return true
                }
                var index = 0
                while index < bytes.count {
                    // Most bytes start no word: one look in the table passes them.
                    let start = starts[Int(bytes[index])]
                    index += 1
                    guard start != 0 else { continue }
                    // Most of those that do are not followed by the word's second letter.
                    let second = index < bytes.count ? bytes[index] | 0x20 : 0
                    switch start {
                    case UInt8(ascii: "t"):
                        if second == UInt8(ascii: "o"), spells("token", at: index - 1) { return true }
                    case UInt8(ascii: "k"): if second == UInt8(ascii: "e"), spells("key", at: index - 1) { return true }
                    case UInt8(ascii: "p"):
                        if second == UInt8(ascii: "a"), spells("password", at: index - 1) { return true }
                    case UInt8(ascii: "s"):
                        if second == UInt8(ascii: "e"), spells("secret", at: index - 1) { return true }
                        if second == UInt8(ascii: "i"), spells("sig", at: index - 1) { return true }
                    case UInt8(ascii: "a"):
                        if second == UInt8(ascii: "u"), spells("authorization", at: index - 1) { return true }
                    case UInt8(ascii: "c"):
                        if second == UInt8(ascii: "o"), spells("cookie", at: index - 1) { return true }
                    case UInt8(ascii: "%"): return true
                    default: if second == UInt8(ascii: "u") { return true }  // a backslash: `\u`
                    }
                }
                return false
            }
        }
    }

    /// For each byte: the lowercase letter of a word start, `%`, a backslash, or `0`.
    private static let secretWordStarts: [UInt8] = (0...255).map { byte in
        let lowered = UInt8((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
        return "tkpsac%\\".utf8.contains(lowered) ? lowered : 0
    }
}
