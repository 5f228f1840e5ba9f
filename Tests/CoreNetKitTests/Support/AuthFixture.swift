//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Dispatch
import Foundation

@_spi(Testing) @testable import CoreNetKit

/// The token manager's clock, read as dates: time moves only when a test advances it.
final class ManualNow: Sendable {
    let clock = ManualClock(startDate: Date(timeIntervalSince1970: 1_800_000_000))

    var now: Date { clock.currentDate }

    func advance(by seconds: TimeInterval) { clock.advance(by: .seconds(seconds)) }
}

/// `/protected/:id`'s answer: the id and the token the server accepted.
struct ProtectedReply: Decodable, Sendable, Equatable {
    let id: String
    let token: String
}

/// `POST /auth/refresh`'s answer.
struct RefreshReply: Decodable, Sendable {
    let accessToken: String
    let refreshToken: String
    let expiresIn: Double
}

/// `POST /auth/refresh` as an app writes it: a request that needs no authorization.
final class RefreshTokenRequest: BaseServerRequest<RefreshReply>, @unchecked Sendable {
    private let baseURL: URL
    private let refreshToken: String

    init(baseURL: URL, refreshToken: String, configuration: NetworkConfiguration) {
        self.baseURL = baseURL
        self.refreshToken = refreshToken
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(
            method: .post, baseUrl: baseURL, relativeUrl: "/auth/refresh",
            parameters: .jsonObject(["refreshToken": .string(refreshToken)]), requiresAuthorization: false)
    }
}

/// Refreshes against the test server's `/auth/refresh`, through `configuration`.
struct TestServerRefresher: TokenRefresher {
    let baseURL: URL
    let configuration: NetworkConfiguration
    let now: ManualNow

    func refresh(_ tokens: AuthTokens) async throws -> AuthTokens {
        let reply = try await RefreshTokenRequest(
            baseURL: baseURL, refreshToken: tokens.refreshToken ?? "",
            configuration: configuration
        ).performAsync()
        return AuthTokens(
            accessToken: reply.accessToken, refreshToken: reply.refreshToken, expiresIn: reply.expiresIn, now: now.now)
    }
}

/// A manager wired to one test server, with a manual clock and a record of session ends.
struct AuthFixture {
    let server: TestServer
    let manager: AccessSafeRequestManager
    /// A configuration that goes through `manager`; the refresher uses it too, so the refresh
    /// request passing the manager by is exercised in every test.
    let configuration: NetworkConfiguration
    let now: ManualNow
    let callbackQueue: DispatchQueue
    private let expired = Locked<[BaseServerError]>([])

    /// `tokens` start as the server's generation-1 tokens; `refresher` defaults to the server's
    /// endpoint; `interceptors` are appended to the standard stages (they run once per attempt,
    /// right before the transport); `adjust` changes the options.
    init(
        server: TestServer, tokens: AuthTokens? = AuthTokens(accessToken: "token-1", refreshToken: "refresh-1"),
        refresher: ((NetworkConfiguration, ManualNow) -> any TokenRefresher)? = nil,
        interceptors: [any Interceptor] = [],
        options adjust: (inout AccessSafeRequestManager.Options) -> Void = { _ in }
    ) {
        self.server = server
        let now = ManualNow()
        let queue = DispatchQueue(label: "tests.auth.callbacks")
        let manager = AccessSafeRequestManager()
        let configuration = testConfiguration(queue: queue) {
            $0.accessManager = manager
            $0.interceptors += interceptors
        }
        var options = AccessSafeRequestManager.Options(callbackQueue: queue, clock: now.clock)
        adjust(&options)
        let refresher =
            refresher?(configuration, now)
            ?? TestServerRefresher(baseURL: server.baseURL, configuration: configuration, now: now)
        manager.configure(store: InMemoryTokenStore(tokens), refresher: refresher, options: options)
        let expired = self.expired
        manager.onSessionExpired { error in expired.withLock { $0.append(error) } }
        self.manager = manager
        self.configuration = configuration
        self.now = now
        self.callbackQueue = queue
    }

    /// A fixture whose refresher gets new tokens from the server and then makes the server reject
    /// them too: every renewed token is rejected again.
    static func rejectingEveryRenewedToken(server: TestServer) -> AuthFixture {
        AuthFixture(
            server: server,
            refresher: { configuration, now in
                let endpoint = TestServerRefresher(baseURL: server.baseURL, configuration: configuration, now: now)
                return ClosureTokenRefresher { tokens in
                    let fresh = try await endpoint.refresh(tokens)
                    server.auth.expireAccessToken()  // the server rejects the new token too
                    return fresh
                }
            })
    }

    /// `GET /protected/:id` (or `path`) through the manager.
    func protected(_ id: String, path: String? = nil) -> ActiveRequestContext<ProtectedReply> {
        let baseURL = server.baseURL
        let relative = path ?? "/protected/\(id)"
        return TestRequest<ProtectedReply>(configuration: configuration) {
            ServerRequest(method: .get, baseUrl: baseURL, relativeUrl: relative)
        }.perform()
    }

    /// The session-expired errors delivered so far (drains the callback queue first).
    func sessionExpiries() async -> [BaseServerError] {
        await drain(callbackQueue)
        return expired.withLock { $0 }
    }

    /// Waits (bounded) until `count` requests wait for a refresh.
    func waitUntilWaiting(_ count: Int) async throws {
        try await withTimeout(30, "\(count) requests waiting for the refresh") { await manager.waitUntilWaiting(count) }
    }
}

extension BaseServerError {
    /// The code of the wrapped error, for `tokenRefreshFailed`.
    var underlyingCode: BaseServerError.Code? { (underlyingError as? BaseServerError)?.code }
}
