//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// Auth routes: `POST /auth/refresh`, `POST /auth/login`, `ANY /protected/:id` (state in ``AuthState``).
extension TestResponder {
    /// `POST /auth/refresh` with `{"refreshToken":"..."}`.
    func refresh(_ request: Request) async throws -> Response {
        let auth = self.core.auth
        auth.countRefreshCall()
        let body = try await Self.jsonObjectBody(request)
        if auth.holdRefresh {
            await self.core.passGate("refresh")
        }
        guard let tokens = auth.refresh(presenting: body["refreshToken"]?.stringValue) else {
            return Self.error(.unauthorized, code: "REFRESH_EXPIRED", message: "The refresh token has expired")
        }
        return Self.tokenResponse(tokens)
    }

    /// `POST /auth/login` with `{"user":"..","password":".."}`; password `wrong` → 401 `BAD_CREDENTIALS`.
    func login(_ request: Request) async throws -> Response {
        let body = try await Self.jsonObjectBody(request)
        if body["password"]?.stringValue == "wrong" {
            return Self.error(.unauthorized, code: "BAD_CREDENTIALS", message: "Wrong user or password")
        }
        return Self.tokenResponse(self.core.auth.currentTokens())
    }

    /// `ANY /protected/:id`: 200 for `Authorization: Bearer <current access token>`, else rejected
    /// per ``AuthState/rejectionStyle``; every rejection is counted at gate `"rejected"` (never held).
    func protected(_ id: String, request: Request) -> Response {
        let authorization = request.headers[.authorization] ?? ""
        var token = authorization
        if authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " {
            token = String(authorization.dropFirst(7))
        }
        let auth = self.core.auth
        if auth.checkAccessToken(token) {
            return Self.json(.object([("id", .string(id)), ("token", .string(token))]))
        }
        self.core.countArrival(at: "rejected")
        let message = "The access token is invalid or has expired"
        switch auth.rejectionStyle {
        case .status401:
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
            return Self.error(.unauthorized, code: "TOKEN_EXPIRED", message: message, headers: headers)
        case .status403:
            return Self.error(.forbidden, code: "TOKEN_EXPIRED", message: message)
        case .bodyErrorCode5:
            return Self.json(Self.errorCode5Body)
        }
    }

    /// A `401` for a request that does not carry the current access token, `nil` for one that
    /// does (counted in ``AuthState/tokensSeen()`` either way).
    func rejection(unlessAuthorized request: Request) -> Response? {
        let authorization = request.headers[.authorization] ?? ""
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : authorization
        guard !self.core.auth.checkAccessToken(token) else { return nil }
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
        return Self.error(.unauthorized, code: "TOKEN_EXPIRED", message: "The token has expired", headers: headers)
    }

    private static func tokenResponse(_ tokens: (accessToken: String, refreshToken: String)) -> Response {
        Self.json(
            .object([
                ("accessToken", .string(tokens.accessToken)),
                ("refreshToken", .string(tokens.refreshToken)),
                ("expiresIn", .int(3600)),
            ])
        )
    }
}
