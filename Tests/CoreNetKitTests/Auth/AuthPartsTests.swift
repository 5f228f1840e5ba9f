//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@_spi(Testing) @testable import CoreNetKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The parts of the token refresh on their own: preparator, trigger, tokens, the decision state
/// and the session-expiry rule. Pure logic, no I/O, except where a test says so.
@Suite(.timeLimit(.minutes(3))) struct AuthPartsTests {
    private func request(headers: [String: String] = [:]) -> ServerRequest {
        ServerRequest(method: .get, baseUrl: URL(string: "http://api.invalid")!, headers: headers)
    }

    private func response(status: Int = 200, body: String) -> ServerResponse {
        ServerResponse(
            statusCode: status, headers: [:], data: Data(body.utf8),
            request: URLRequest(url: URL(string: "http://api.invalid")!))
    }

    @Test func preparatorReplacesTheHeaderWhateverItsCaseWithSchemeAndToken() async throws {
        let preparator = AccessTokenPreparator { "abc" }

        let prepared = try await preparator.prepare(request(headers: ["authorization": "Bearer old", "Accept": "x"]))

        #expect(prepared.headers == ["Authorization": "Bearer abc", "Accept": "x"])
    }

    @Test func preparatorWithoutSchemeSendsTheBareTokenInItsOwnHeaderAndNilRemovesIt() throws {
        let preparator = AccessTokenPreparator(header: "X-Auth-Token", scheme: nil) { nil }

        let bare = try preparator.authorize(request(), with: "abc")
        let removed = try preparator.authorize(bare, with: nil)

        #expect(bare.headers == ["X-Auth-Token": "abc"])
        #expect(removed.headers.isEmpty)
    }

    @Test func tokenWithALineBreakIsRejectedWithoutShowingIt() {
        let preparator = AccessTokenPreparator { nil }

        let error = #expect(throws: BaseServerError.self) {
            try preparator.authorize(request(), with: "abc\r\nX-Evil: 1")
        }

        #expect(error?.code == .invalidRequest)
        #expect(error?.description.contains("abc") == false)
    }

    @Test func tokensNeverShowTheirSecretsWhenPrintedOrDumped() {
        let tokens = AuthTokens(accessToken: "sEcReT-a", refreshToken: "sEcReT-r", expiresIn: 60)
        var dumped = ""

        dump(tokens, to: &dumped)
        let printed = "\(tokens) \(String(reflecting: tokens))"

        #expect(!printed.contains("sEcReT"))
        #expect(!dumped.contains("sEcReT"))
        #expect(printed.contains(LogRedactor.mask))
    }

    @Test func customTokenHeadersAreRedactedInLogs() {
        let headers = LogRedactor.redact(headers: [("X-Auth-Token", "abc"), ("Api-Key", "k"), ("Accept", "json")])

        #expect(headers.map(\.value) == [LogRedactor.mask, LogRedactor.mask, "json"])
    }

    @Test func bodyErrorCodeTriggerMatchesTheCodeAtItsKeyPathOnly() {
        let trigger = RefreshTrigger.bodyErrorCode(5)

        #expect(trigger.matches(response(body: #"{"error": {"error_code": 5, "error_msg": "expired"}}"#)))
        #expect(trigger.matches(response(body: #"{"error": {"error_code": "5"}}"#)))
        #expect(!trigger.matches(response(body: #"{"error": {"error_code": 6}}"#)))
        #expect(!trigger.matches(response(body: #"{"error_code": 5}"#)))
        #expect(!trigger.matches(response(body: "not json")))
        #expect(trigger.or(.status401).matches(response(status: 401, body: "")))
    }

    @Test func defaultSessionExpiryIgnoresConnectionProblemsAndServerFaults() {
        let expired = AccessSafeRequestManager.Options().isSessionExpired

        #expect(!expired(URLError(.notConnectedToInternet)))
        #expect(!expired(BaseServerError(code: .timeout)))
        #expect(!expired(BaseServerError.badStatus(503, body: nil)))
        #expect(expired(BaseServerError(code: .unauthorized, statusCode: 401)))
        #expect(expired(BaseServerError.badStatus(400, body: nil)))
        #expect(expired(CocoaError(.coderValueNotFound)))
    }

    // MARK: The decision state

    private typealias Machine = AccessSafeRequestManager.State<Int>

    private func machine(_ tokens: AuthTokens? = AuthTokens(accessToken: "a1", refreshToken: "r1")) -> Machine {
        Machine(tokens: tokens, refresher: ClosureTokenRefresher { $0 }, options: AccessSafeRequestManager.Options())
    }

    private func startRefresh(_ machine: inout Machine, waiter: Int = 1) throws -> Int {
        guard case .start(let job) = machine.enqueue(.rejected(machine.ticket), now: Date(), id: waiter, waiter: waiter)
        else {
            throw TimedOut(what: "a refresh to start")
        }
        return job.id
    }

    @Test func refreshedTokenThatCannotBeSentFailsTheRefresh() throws {
        var state = machine()
        let id = try startRefresh(&state)

        let result = state.finish(id, with: .success(AuthTokens(accessToken: "a\nb")))
        let finished = try #require(result)

        guard case .failure(let error) = finished.result else {
            Issue.record("expected failure")
            return
        }
        #expect(error.code == .tokenRefreshFailed)
        #expect((error.underlyingError as? BaseServerError)?.code == .invalidRequest)
        #expect(state.tokens?.accessToken == "a1")
    }

    @Test func refreshWithoutANewRefreshTokenKeepsTheCurrentOne() throws {
        var state = machine()
        let id = try startRefresh(&state)

        let result = state.finish(id, with: .success(AuthTokens(accessToken: "a2")))
        let finished = try #require(result)

        #expect(finished.persist?.tokens == AuthTokens(accessToken: "a2", refreshToken: "r1"))
        #expect(finished.waiters == [1])
    }

    @Test func refreshedTokensWithAPendingLifetimeArePersistedWithTheirExpiry() throws {
        let clock = ManualClock(startDate: Date(timeIntervalSince1970: 1_800_000_000))
        var state = Machine(
            tokens: AuthTokens(accessToken: "a1", refreshToken: "r1"), refresher: ClosureTokenRefresher { $0 },
            options: AccessSafeRequestManager.Options(clock: clock))
        let id = try startRefresh(&state)
        clock.advance(by: .seconds(10))

        let result = state.finish(id, with: .success(AuthTokens(accessToken: "a2", expiresIn: 60)))

        let finished = try #require(result)
        let expiry = clock.currentDate.addingTimeInterval(60)
        #expect(finished.persist?.tokens == AuthTokens(accessToken: "a2", refreshToken: "r1", expiresAt: expiry))
        #expect(state.tokens?.expiresAt == expiry)
    }

    @Test func tokensSetDuringARefreshWinOverItsResult() throws {
        var state = machine()
        let id = try startRefresh(&state)
        _ = state.setTokens(AuthTokens(accessToken: "signed-in", refreshToken: "r9"))

        let result = state.finish(id, with: .success(AuthTokens(accessToken: "a2")))
        let finished = try #require(result)

        #expect(try finished.result.get().token == "signed-in")
        #expect(finished.persist == nil)
        #expect(state.tokens?.accessToken == "signed-in")
    }

    @Test func refreshThatAlreadyTimedOutIgnoresItsLateResult() throws {
        var state = machine()
        let id = try startRefresh(&state)
        _ = state.finish(id, with: .failure(BaseServerError(code: .timeout)))

        let late = state.finish(id, with: .success(AuthTokens(accessToken: "late")))

        #expect(late == nil)
        #expect(state.tokens?.accessToken == "a1")
    }

    @Test func cancelledWaiterLeavesTheQueue() throws {
        var state = machine()
        _ = try startRefresh(&state, waiter: 1)
        _ = state.enqueue(.send, now: Date(), id: 2, waiter: 2)

        let removed = state.removeWaiter(1)

        #expect(removed == 1)
        #expect(state.waitingCount == 1)
    }

    @Test func completionRefresherCountsOnlyItsFirstCompletion() async throws {
        let refresher = ClosureTokenRefresher(completion: { _, completion in
            completion(.success(AuthTokens(accessToken: "first")))
            completion(.failure(BaseServerError(code: .timeout)))
        })

        let tokens = try await refresher.refresh(AuthTokens(accessToken: "old"))

        #expect(tokens.accessToken == "first")
    }

    // MARK: With the server

    @Test func refreshedTokensAreSavedToTheStoreAndANewConfigurationReadsThem() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            let store = InMemoryTokenStore(AuthTokens(accessToken: "token-1", refreshToken: "refresh-1"))
            let refresher = TestServerRefresher(
                baseURL: server.baseURL, configuration: auth.configuration, now: auth.now)
            let options = AccessSafeRequestManager.Options(callbackQueue: auth.callbackQueue, clock: auth.now.clock)
            auth.manager.configure(store: store, refresher: refresher, options: options)
            server.auth.expireAccessToken()

            _ = try await auth.protected("saved").value

            #expect(store.load()?.accessToken == "token-2")
            #expect(store.load()?.refreshToken == "refresh-2")
            let restarted = AccessSafeRequestManager(store: store)
            #expect(restarted.tokens == store.load())
        }
    }

    @Test func signInDuringAFailingRefreshSendsTheWaitingRequestsWithTheNewTokensAndKeepsTheSession() async throws {
        try await withTestServer { server in
            let auth = AuthFixture(server: server)
            server.auth.expireAccessToken()
            server.auth.refreshShouldFail = true
            server.auth.holdRefresh = true
            let log = EventLog(auth.protected("waiting"))
            try await auth.waitUntilWaiting(1)

            server.auth.setAccessToken("signed-in")
            auth.manager.setTokens(AuthTokens(accessToken: "signed-in", refreshToken: "other"))
            server.release("refresh")

            #expect(try await log.success().token == "signed-in")
            #expect(auth.manager.tokens?.accessToken == "signed-in")
            #expect(server.auth.refreshCalls == 1)
            #expect(await auth.sessionExpiries().isEmpty)
        }
    }

    @available(*, deprecated, message: "exercises the deprecated Options.now")
    @Test func deprecatedNowBecomesTheDateOfTheOneClockWhoseWaitsStayOnTheOldClock() async throws {
        let clock = ManualClock()
        let fixed = Date(timeIntervalSince1970: 42)
        let options = AccessSafeRequestManager.Options(clock: clock, now: { fixed })
        let wait = Task { try await options.clock.pause(for: .seconds(5)) }

        try await withTimeout(30, "a sleeper on the clock") { await clock.waitForSleepers(1) }
        clock.advance(by: .seconds(5))
        try await withTimeout(30, "the wait on the wrapped clock") { try await wait.value }

        #expect(options.clock.currentDate == fixed)
        #expect(options.now() == fixed)
    }
}
