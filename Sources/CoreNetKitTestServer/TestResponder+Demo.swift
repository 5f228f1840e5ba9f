//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// The demo API: `/users`, `/users/:id`, `POST /users`, `POST /orders`.
extension TestResponder {
    /// `GET /users`.
    static func listUsers() -> Response {
        Self.json(DemoData.userList)
    }

    /// `GET /users/:id`, 404 `USER_NOT_FOUND` for an unknown id.
    static func user(_ id: String) -> Response {
        guard let body = DemoData.userBodies[id] else {
            return Self.error(.notFound, code: "USER_NOT_FOUND", message: "No user with id \(id)")
        }
        return Self.json(body)
    }

    /// `POST /users`: echoes the JSON object with `"id":100` (added last, or replacing an existing id), 201.
    static func createUser(_ request: Request) async throws -> Response {
        guard case .object(var members) = try await Self.jsonObjectBody(request) else {
            throw RouteError.badJSON("The body must be a JSON object")
        }
        if let index = members.firstIndex(where: { $0.0 == "id" }) {
            members[index].1 = .int(100)
        } else {
            members.append(("id", .int(100)))
        }
        return Self.json(.object(members), status: .created)
    }

    /// `POST /orders`: always the app-level error 422 `ORDER_LIMIT`.
    static func orderLimit() -> Response {
        Self.error(.unprocessableContent, code: "ORDER_LIMIT", message: "You can have at most 3 open orders")
    }
}
