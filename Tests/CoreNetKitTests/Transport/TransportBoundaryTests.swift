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
import Testing

/// The pipeline keeps one deadline and one size budget over the whole exchange, on every
/// transport, against servers that are slow, silent, lying or huge (the raw fault server).
/// Where the library's own timer decides, the test advances a manual clock once the fault is
/// under way; the real-time bounds are only there so a hang fails instead of blocking the run.
@Suite("Transport boundary: deadline and budget", .timeLimit(.minutes(3)))
struct TransportBoundaryTests {
    /// Sends `fault` with a manual clock and `timeout`, waits until `ready` says the fault is
    /// under way and the deadline's timer sleeps, advances the clock by `advance` and returns the
    /// outcome, after the server saw the connection closed.
    ///
    /// The timeout is long in real time on purpose: URLSession's own timeout, the backstop behind
    /// the library's deadline (one second more, counted in real time on Linux), must not end the
    /// exchange while a loaded machine is slow to reach the manual clock.
    private func timedOut(
        _ fault: FaultServer.Fault, timeout: TimeInterval = 60, idleTimeout: TimeInterval? = nil,
        advance: Duration = .seconds(60), waitForBody: Bool
    ) async throws -> (Result<Data, BaseServerError>, TaskPool) {
        try await withFaultServer { faults in
            let clock = ManualClock()
            let configuration = testConfiguration {
                $0.clock = clock
                $0.idleTimeout = idleTimeout
            }
            let base = faults.baseURL
            let request = TestRequest<Data>(configuration: configuration) {
                ServerRequest(method: .get, baseUrl: base, relativeUrl: "/fault/\(fault.rawValue)", timeout: timeout)
            }
            let firstBytes = Once<Bool>()
            let context = request.perform().onDownloadProgress { _ in firstBytes.fire(true) }
            if waitForBody {
                _ = try await withTimeout(30, "the first bytes of the body") { await firstBytes.value }
            } else {
                try await withTimeout(30, "the request") { await faults.requestsReceived(1) }
            }
            try await withTimeout(30, "the request's deadline on the clock") { await clock.waitForRequestDeadlines(1) }

            clock.advance(by: advance)

            let result = try await withTimeout(30, "the timeout") { await context.result.mapError { $0 } }
            try await withTimeout(30, "the connection to close") { await faults.connectionsClosed() }
            let typed = result.mapError { $0 as? BaseServerError ?? BaseServerError(code: .transport) }
            return (typed, configuration.taskPool)
        }
    }

    @Test func stalledBodyEndsInTimeoutAtTheDeadlineWithTheConnectionClosed() async throws {
        let (result, pool) = try await timedOut(.stalledBody, waitForBody: true)

        #expect(result.failureCode == .timeout)
        #expect(pool.isEmpty)
    }

    @Test func aHeadWhoseBodyNeverComesEndsInTimeoutAtTheDeadline() async throws {
        // The pipeline collects this body, so URLSessionTransport holds the head back for the
        // first bytes: the deadline must still end the wait for them.
        let (result, pool) = try await timedOut(.headOnly, waitForBody: false)

        #expect(result.failureCode == .timeout)
        #expect(pool.isEmpty)
    }

    @Test func trickledBodyEndsInTimeoutAtTheDeadline() async throws {
        let (result, pool) = try await timedOut(.trickledBody, waitForBody: true)

        #expect(result.failureCode == .timeout)
        #expect(pool.isEmpty)
    }

    @Test func lyingContentLengthHeldOpenEndsInTimeoutAtTheDeadline() async throws {
        let (result, pool) = try await timedOut(.lyingLength, waitForBody: true)

        #expect(result.failureCode == .timeout)
        #expect(pool.isEmpty)
    }

    @Test func endlessEarlyHintsEndInTimeoutAtTheDeadline() async throws {
        let (result, pool) = try await timedOut(.endlessEarlyHints, waitForBody: false)

        #expect(result.failureCode == .timeout)
        #expect(pool.isEmpty)
    }

    @Test func slowHeadersEndInTimeoutAtTheDeadline() async throws {
        let (result, pool) = try await timedOut(.slowHeaders, waitForBody: false)

        #expect(result.failureCode == .timeout)
        #expect(pool.isEmpty)
    }

    @Test func noTotalDeadlineWithAnIdleTimeoutEndsAStalledStreamAfterTheIdleTime() async throws {
        // The lying-length fault sends its head and body in one write: one chunk arrives, then
        // nothing, so no piece can arrive after the clock was advanced.
        let (result, pool) = try await timedOut(
            .lyingLength, timeout: .infinity, idleTimeout: 5, advance: .seconds(5), waitForBody: true)

        #expect(result.failureCode == .timeout)
        #expect(result.failureMessage?.contains("idle") == true)
        #expect(pool.isEmpty)
    }

    @Test func gzipBombEndsInResponseTooLargeWithMemoryUnderTheBudget() async throws {
        try await withFaultServer { faults in
            let budget = 16 << 20
            // A transport of its own: the bomb must not slow the shared one's other tests down.
            let configuration = testConfiguration(transport: makeTestTransport()) {
                $0.maximumResponseBodySize = budget
            }
            // On FoundationNetworking the 1 GiB bomb inflates on libcurl's thread faster than a
            // loaded delegate queue drains, and stalls every other URLSession test of the run
            // for seconds; the 64 MiB one pins the same outcome. corenetkit-faults measures the
            // 1 GiB one on both transports.
            let bomb: FaultServer.Fault = runsOnFoundationNetworking ? .smallGzipBomb : .gzipBomb
            let request = faults.request(bomb, configuration: configuration, timeout: 60)

            let result = try await outcome(of: request)

            #expect(result.failureCode == .responseTooLarge)
            #expect(configuration.taskPool.isEmpty)
            // The memory is measured in a process of its own (the fleet child), with the same
            // transport: a peak of this process would count the suites running beside it.
            // FoundationNetworking inflates the body on libcurl's thread and queues every chunk for
            // the delegate faster than the delegate drains them; by the time the transport sees
            // the budget passed, most of the gigabyte waits in its queue (measured 1.2-1.3 GB
            // peak), so the bound holds only where the transport reads as fast as it is pulled.
            if !runsOnFoundationNetworking {
                let (outcome, growth) = try await peakInAProcessOfItsOwn(faults.url(bomb), budget: budget)
                #expect(outcome == "responseTooLarge")
                #expect(growth < budget + 50_000_000, "peak RSS grew by \(growth) bytes")
            }
        }
    }

    /// The outcome of one GET of `url` within `budget`, and how far the resident memory rose,
    /// measured in a child process (`corenetkit-fleet-child --peak-of`).
    private func peakInAProcessOfItsOwn(_ url: URL, budget: Int) async throws -> (outcome: String, growth: Int) {
        let process = Process()
        process.executableURL = try FleetFixture.child()
        process.arguments = ["--peak-of", url.absoluteString, "\(budget)"]
        let output = Pipe()
        process.standardOutput = output
        await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
            process.terminationHandler = { _ in ended.resume() }
            do { try process.run() } catch { ended.resume() }
        }
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let words = line.split(whereSeparator: \.isWhitespace)
        let growth = try #require(words.last.flatMap { Int($0) }, "the child printed \(line)")
        return (words.dropLast().joined(separator: " "), growth)
    }

    @Test func aSmallBodyThatInflatesFarDecodesWithinTheBudget() async throws {
        // 1 MiB of zeros in about 6.6 KB: the budget bounds the inflated size, and no ratio of
        // inflated to compressed bytes refuses a legitimate body.
        try await withFaultServer { faults in
            let configuration = testConfiguration { $0.maximumResponseBodySize = 8 << 20 }
            let base = faults.baseURL
            let request = TestResponseRequest(configuration: configuration) {
                ServerRequest(method: .get, baseUrl: base, relativeUrl: "/fault/gzip-zeros-1m")
            }

            let response = try await request.performAsync()

            #expect(response.data == Data(count: 1 << 20))
        }
    }

    /// A plain body, and 1 MiB inflated from 6.6 KB (a bomb would flood FoundationNetworking's
    /// delegate queue and stall the other URLSession tests).
    @Test(arguments: [FaultServer.Fault.hugeJSON, .gzipMebibyte])
    func aBodyPastTheBudgetNamesTheSettingToRaise(fault: FaultServer.Fault) async throws {
        try await withFaultServer { faults in
            let configuration = testConfiguration { $0.maximumResponseBodySize = 100_000 }

            let result = try await outcome(of: faults.request(fault, configuration: configuration))

            #expect(result.failureCode == .responseTooLarge)
            #expect(result.failureMessage?.contains("NetworkConfiguration.maximumResponseBodySize") == true)
        }
    }

    @Test func bodyLargerThanTheBudgetEndsInResponseTooLargeNamingTheLimit() async throws {
        try await withFaultServer { faults in
            let configuration = testConfiguration { $0.maximumResponseBodySize = 100_000 }

            let result = try await outcome(of: faults.request(.hugeJSON, configuration: configuration))

            #expect(result.failureCode == .responseTooLarge)
            #expect(result.failureMessage?.contains("100000") == true)
        }
    }

    @Test func repeatedHeaderFieldsAreKept() async throws {
        try await withFaultServer { faults in
            let base = faults.baseURL
            let request = TestResponseRequest(configuration: testConfiguration()) {
                ServerRequest(method: .get, baseUrl: base, relativeUrl: "/fault/repeated-fields")
            }

            let response = try await request.performAsync()

            #expect(response.headers.values(for: "Set-Cookie").count == 2)
            #expect(response.headers.values(for: "set-cookie").first?.hasPrefix("a=1; Path=/; Expires=") == true)
            #expect(response.headers["Set-Cookie"]?.hasPrefix("a=1") == true)
            #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="api", Basic realm="x""#)
            #expect(response.headers["Link"] == #"</page/2>; rel="next", </page/9>; rel="last""#)
        }
    }

    @Test func transportThatIgnoresCancellationIsLeftAfterTheGraceOnTheConfigurationsClock() async throws {
        let clock = ManualClock()
        let release = Once<Void>()
        let configuration = testConfiguration {
            $0.clock = clock
            $0.transport = DeafTransport(release: release)
        }
        let request = TestRequest<Data>(configuration: configuration) {
            ServerRequest(method: .get, baseUrl: URL(string: "http://deaf.invalid")!, timeout: 3)
        }
        let context = request.perform()
        try await withTimeout(30, "the request's deadline on the clock") { await clock.waitForRequestDeadlines(1) }
        clock.advance(by: .seconds(3))
        // Expired and cancelled; the transport does not stop, so the grace runs on the same clock.
        try await withTimeout(30, "the grace on the clock") { await clock.waitForRequestDeadlines(1) }

        clock.advance(by: .seconds(2))

        let result = try await withTimeout(30, "the timeout") { await context.result.mapError { $0 } }
        release.fire(())

        #expect((result.failure as? BaseServerError)?.code == .timeout)
    }
}

/// A transport that ignores cancellation: `send` returns only when `release` fires.
private struct DeafTransport: Transport {
    let release: Once<Void>

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        await release.value
        return TransportResponse(statusCode: 200, body: Data(), url: request.url)
    }
}

/// A request whose model is the response itself.
final class TestResponseRequest: BaseServerRequest<ServerResponse>, @unchecked Sendable {
    private let make: @Sendable () throws -> ServerRequest

    init(configuration: NetworkConfiguration, _ make: @escaping @Sendable () throws -> ServerRequest) {
        self.make = make
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() throws -> ServerRequest { try make() }
    override func handle(serverResponse: ServerResponse) throws -> ServerResponse { serverResponse }
}

extension Result where Failure == BaseServerError {
    var failureCode: BaseServerError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }

    var failureMessage: String? {
        if case .failure(let error) = self { return error.message }
        return nil
    }
}
