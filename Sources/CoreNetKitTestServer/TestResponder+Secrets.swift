//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird

/// `ANY /secrets/echo?as=json|form|multipart|text`: a server that hands every value it received
/// back, to check that no secret the client sent reaches a log through the response.
///
/// Every (name, value) the request carries — each header, each query item, and the fields of a
/// form, JSON object or `multipart/form-data` body — comes back twice in the body, in the
/// encoding `as` asks for: once under its own name (`password`, `access_token`, …) and once under
/// a harmless name (`echo0`, `echo1`, …). Every one also comes back as a response header
/// `X-Echo-<Name>` (so `Authorization` is echoed as `X-Echo-Authorization`), and the `Cookie`
/// header as a `Set-Cookie`.
extension TestResponder {
    static func echoSecrets(_ request: Request) async throws -> Response {
        let query = QueryItems(request.uri.query)
        let bytes = try await collectBody(request)
        var received: [(String, String)] = []
        for field in request.headers {
            received.append((field.name.canonicalName, field.value))
        }
        received += query.items.filter { $0.0 != "as" }
        received += SecretFields.fields(of: bytes, contentType: request.headers[.contentType])

        var headers = HTTPFields()
        for (index, (name, value)) in received.enumerated() {
            let safeName = name.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            if let field = HTTPFields.Element.Name("X-Echo-\(safeName.isEmpty ? "\(index)" : safeName)") {
                headers.append(HTTPFields.Element(name: field, value: value))
            }
        }
        if let cookie = request.headers[.cookie] { headers[.setCookie] = "echo=\(cookie); Path=/" }

        let pairs = received + received.enumerated().map { ("echo\($0.offset)", $0.element.1) }
        switch query["as"] ?? "json" {
        case "form":
            let body = pairs.map { SecretFields.formEncode($0.0) + "=" + SecretFields.formEncode($0.1) }
                .joined(separator: "&")
            headers[.contentType] = "application/x-www-form-urlencoded"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        case "multipart":
            let boundary = "echo-boundary-7f3a"
            var body = ""
            for (name, value) in pairs {
                body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
            }
            body += "--\(boundary)--\r\n"
            headers[.contentType] = "multipart/form-data; boundary=\(boundary)"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        case "text":
            let body = pairs.map { "\($0.0): \($0.1)" }.joined(separator: "\n")
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        default:
            var object: [(String, JSON)] = []
            for (name, value) in pairs { object.append((name, .string(value))) }
            return Self.json(.object(object), headers: headers)
        }
    }
}

/// The (name, value) fields of a small request body: a form, a JSON object's string members, or
/// the parts of a `multipart/form-data` body (read whole, not streamed: for small test bodies).
enum SecretFields {
    static func fields(of bytes: [UInt8], contentType: String?) -> [(String, String)] {
        let text = String(decoding: bytes, as: UTF8.self)
        let type = (contentType ?? "").lowercased()
        if type.hasPrefix("multipart/"), let parameters = HeaderParameters(contentType ?? ""),
            let boundary = parameters["boundary"]
        {
            return multipart(text, boundary: boundary)
        }
        if type.hasPrefix("application/json"),
            case .object(let members)? = try? JSONDecoder().decode(JSON.self, from: Data(bytes))
        {
            return members.compactMap { name, value in
                if case .string(let text) = value { return (name, text) }
                return nil
            }
        }
        if type.hasPrefix("application/x-www-form-urlencoded") {
            return QueryItems(text.replacingOccurrences(of: "+", with: "%20")).items
        }
        return []
    }

    private static func multipart(_ text: String, boundary: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        for chunk in text.components(separatedBy: "--\(boundary)") {
            guard let split = chunk.range(of: "\r\n\r\n") else { continue }
            let head = chunk[..<split.lowerBound]
            guard let nameStart = head.range(of: "name=\"") else { continue }
            let rest = head[nameStart.upperBound...]
            guard let nameEnd = rest.firstIndex(of: "\"") else { continue }
            var value = String(chunk[split.upperBound...])
            if value.hasSuffix("\r\n") { value.removeLast() }  // "\r\n" is one Character
            fields.append((String(rest[..<nameEnd]), value))
        }
        return fields
    }

    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
