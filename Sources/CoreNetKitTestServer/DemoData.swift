//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// The fixed data set of the demo API (`/users`).
enum DemoData {
    /// One demo user.
    struct User: Sendable {
        let id: Int
        let name: String
        let email: String

        /// `{"id":..,"name":..,"email":..}`.
        var json: JSON {
            .object([("id", .int(self.id)), ("name", .string(self.name)), ("email", .string(self.email))])
        }
    }

    /// The five users of `GET /users`.
    static let users: [User] = [
        User(id: 1, name: "Ada Lovelace", email: "ada@example.com"),
        User(id: 2, name: "Alan Turing", email: "alan@example.com"),
        User(id: 3, name: "Grace Hopper", email: "grace@example.com"),
        User(id: 4, name: "Edsger Dijkstra", email: "edsger@example.com"),
        User(id: 5, name: "Barbara Liskov", email: "barbara@example.com"),
    ]

    /// `GET /users`, encoded once.
    static let userList: ByteBuffer = JSON.object([
        ("items", .array(users.map(\.json))),
        ("total", .int(users.count)),
    ]).byteBuffer

    /// `GET /users/:id` bodies, encoded once.
    static let userBodies: [String: ByteBuffer] = Dictionary(
        uniqueKeysWithValues: users.map { (String($0.id), $0.json.byteBuffer) }
    )
}
