//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import CoreNetKitTestServer
import Foundation

/// `POST /auth/refresh`'s answer.
struct TokenReply: Decodable, Sendable {
    let accessToken: String
    let refreshToken: String
    let expiresIn: TimeInterval
}

/// `GET /protected/:id`'s answer.
struct ProtectedItem: Decodable, Sendable {
    let id: String
}

/// `POST /auth/refresh`: exchanges the refresh token. It needs no authorization itself.
final class RefreshTokenRequest: BaseServerRequest<TokenReply>, @unchecked Sendable {
    private let refreshToken: String
    init(refreshToken: String) { self.refreshToken = refreshToken }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(
            method: .post, baseUrl: API.base, relativeUrl: "/auth/refresh",
            parameters: .jsonObject(["refreshToken": .string(refreshToken)]), requiresAuthorization: false)
    }
}

/// `GET /protected/:id`: needs a valid access token.
final class GetProtectedRequest: BaseServerRequest<ProtectedItem>, @unchecked Sendable {
    private let id: Int
    init(id: Int, configuration: NetworkConfiguration) {
        self.id = id
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/protected/\(id)")
    }
}

/// Renews the tokens through the demo API's refresh endpoint.
struct DemoRefresher: TokenRefresher {
    func refresh(_ tokens: AuthTokens) async throws -> AuthTokens {
        let reply = try await RefreshTokenRequest(refreshToken: tokens.refreshToken ?? "").performAsync()
        return AuthTokens(accessToken: reply.accessToken, refreshToken: reply.refreshToken, expiresIn: reply.expiresIn)
    }
}

/// An expired access token, five requests at once, one refresh, five successes.
func runTokenRefreshDemo(server: TestServer) async throws {
    section("Token refresh: an expired token, five requests, one refresh")
    // An app configures AccessSafeRequestManager.shared and sets NetworkConfiguration.default's
    // accessManager; the demo uses a manager of its own so the other steps stay unauthorized.
    let signedIn = AuthTokens(
        accessToken: server.auth.currentAccessToken, refreshToken: server.auth.currentRefreshToken)
    let manager = AccessSafeRequestManager(store: InMemoryTokenStore(signedIn), refresher: DemoRefresher())
    manager.onSessionExpired { error in print("onSessionExpired: \(error.localizedDescription) (the app would log out)")
    }
    var configuration = NetworkConfiguration.default
    configuration.accessManager = manager

    server.auth.expireAccessToken()
    let refreshesBefore = server.auth.refreshCalls
    print("the server now rejects the access token with 401; sending 5 requests at once")
    let contexts = (1...5).map { GetProtectedRequest(id: $0, configuration: configuration).perform() }
    for context in contexts {
        let item = try await context.value
        print("GET /protected/\(item.id): 200 with the renewed token")
    }
    let sends = (1...contexts.count).reduce(0) { $0 + server.hits("GET", "/protected/\($1)") }
    print(
        "refresh calls: \(server.auth.refreshCalls - refreshesBefore); "
            + "the server saw \(sends) GETs for \(contexts.count) requests (each rejected one was replayed once)")
}
