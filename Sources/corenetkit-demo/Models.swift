//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import Foundation

/// A user of the demo API.
struct User: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
}

/// A user to create.
struct NewUser: Codable, Sendable {
    let name: String
    let email: String
}

/// The demo API's own error type: what its error bodies say.
struct APIError: Error, Decodable, Sendable, LocalizedError {
    let code: String
    let message: String
    var errorDescription: String? { "\(message) [\(code)]" }
}

/// Where the demo API lives; set once the embedded server is up.
enum API {
    nonisolated(unsafe) static var base = URL(string: "http://127.0.0.1")!
}
