//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// The HTTP method of a ``ServerRequest``.
///
/// The method decides where ``ServerRequestParameter`` values go by default: `GET`, `HEAD` and
/// `DELETE` put them in the query string, `POST`, `PUT` and `PATCH` send them as the body.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method's name as it goes on the wire, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from its wire name; the name is upper-cased.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// Whether parameters of this method go in the query string rather than the body.
    public var encodesParametersInQuery: Bool { self == .get || self == .head || self == .delete }

    public var description: String { rawValue }
}
