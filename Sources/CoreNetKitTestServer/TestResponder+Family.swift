//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// Rotating-token routes: `POST /family/refresh`, `ANY /family/protected/:id` (state in
/// ``FamilyAuthState``).
extension TestResponder {
    /// `POST /family/refresh` with `{"refreshToken":"..."}` and an optional `X-Fleet-Client`
    /// header naming the caller.
    func familyRefresh(_ request: Request) async throws -> Response {
        let family = self.core.family
        let client = request.headers[Self.fleetClientHeader] ?? ""
        let held = family.arrive(client: client)
        let body = try await Self.jsonObjectBody(request)
        if held {
            await self.core.passGate("family-refresh")
            if family.refusesHeld {
                return Self.error(.serviceUnavailable, code: "ABANDONED", message: "The held refresh was dropped")
            }
        }
        switch family.refresh(presenting: body["refreshToken"]?.stringValue ?? "") {
        case .rotated(let accessToken, let refreshToken):
            return Self.json(
                .object([
                    ("accessToken", .string(accessToken)),
                    ("refreshToken", .string(refreshToken)),
                    ("expiresIn", .int(3600)),
                ])
            )
        case .refused(let code, let message):
            return Self.error(.unauthorized, code: code, message: message)
        }
    }

    private static let fleetClientHeader = HTTPFields.Element.Name("X-Fleet-Client")!

    /// `ANY /family/protected/:id`: 200 `{"id":..}` for the family's valid access token, else 401
    /// (counted as an arrival at gate `"family-rejected"`, never held).
    func familyProtected(_ id: String, request: Request) -> Response {
        let authorization = request.headers[.authorization] ?? ""
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : authorization
        if self.core.family.accept(token) {
            return Self.json(.object([("id", .string(id)), ("token", .string(token))]))
        }
        self.core.countArrival(at: "family-rejected")
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
        return Self.error(
            .unauthorized, code: "TOKEN_EXPIRED", message: "The access token is invalid or has expired",
            headers: headers)
    }
}
