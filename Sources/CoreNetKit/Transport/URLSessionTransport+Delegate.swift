//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One task's exchange: what the session's delegate hears of it, reported to the pipeline's
/// ``TransportEvents``, and the task the pipeline pauses, resumes or cancels.
///
/// Its delegate-side `var`s need no lock of their own, for two reasons that hold together:
/// - They are set up before the exchange is published to the delegate, which happens only
///   through `SessionDelegate`'s locked table, and every delegate callback looks it up through
///   that same lock.
/// - After that they are read and written only by delegate callbacks, and URLSession runs those
///   one at a time on the session's delegate queue, an `OperationQueue` with
///   `maxConcurrentOperationCount = 1` (see `URLSessionTransport.init`).
/// What other threads touch (pausing, resuming, cancelling) is in `control`, under its lock.
// safe: see above — published under the delegate's lock, then mutated only on one serial queue
final class URLSessionExchange: TransportExchange, @unchecked Sendable {
    private struct Control {
        var task: SessionTask?
        var cancelled = false
        /// Takes the request out of the host's queue; `false` once it was let through.
        var leaveQueue: (@Sendable () -> Bool)?
    }

    let request: TransportRequest
    let events: TransportEvents
    let gate = CancelGate()
    private let control = Locked(Control())
    /// Runs once, when the task completed: frees the host's slot and removes a spooled body.
    /// Set before the exchange is published to the delegate.
    var completed: @Sendable () -> Void = {}
    var response: HTTPURLResponse?
    var received: Int64 = 0
    /// How many bytes make the whole body, when the head says so plainly: its `Content-Length`,
    /// without a `Content-Encoding` (libcurl would count the inflated bytes) or a
    /// `Transfer-Encoding` (which overrides the length). The body ends when they have arrived,
    /// without waiting for the task to complete.
    private var completeLength: Int64?
    /// Whether the end of the body was reported (at its announced length, or on completion).
    private var ended = false
    /// Set when FoundationNetworking was told to give up an HTTP authentication challenge: the
    /// response and body already received are then the answer (see `urlSession(_:task:didReceive:completionHandler:)`).
    var declinedChallenge = false
    /// Set (from libcurl's thread) when libcurl asked to send the body again because the
    /// connection was dropped: the task then ends in `networkConnectionLost`.
    let connectionDropped = Locked(false)
    /// Set when the server's certificate was refused by the transport's ``ServerTrustPolicy``:
    /// why, in words. The task then ends in a trust failure rather than as cancelled.
    var trustFailure: String?

    init(request: TransportRequest, events: TransportEvents) {
        self.request = request
        self.events = events
    }

    // MARK: Control, from any thread

    /// The request waits for a connection slot; `leave` takes it out of the queue.
    func waitsInQueue(_ leave: @escaping @Sendable () -> Bool) {
        control.withLock { $0.leaveQueue = leave }
    }

    /// Gives the exchange its task; `false` (and the task must not run) if it was cancelled.
    func attach(_ task: URLSessionTask) -> Bool {
        control.withLock { control in
            control.leaveQueue = nil
            guard !control.cancelled else { return false }
            control.task = SessionTask(task: task)
            return true
        }
    }

    func pause() {
        // FoundationNetworking's suspend() takes the transfer off libcurl's multi handle and
        // resume() starts it over from the beginning (measured: a 50 MB body arrived as 80 MB),
        // so there is no way to pause a body on Linux: the pipeline's hard limit bounds it.
        #if !canImport(FoundationNetworking)
        control.withLock { $0.task?.task.suspend() }
        #endif
    }

    func resume() {
        #if !canImport(FoundationNetworking)
        control.withLock { $0.task?.task.resume() }
        #endif
    }

    func cancel() {
        let (task, leaveQueue): (SessionTask?, (@Sendable () -> Bool)?) = control.withLock { control in
            guard !control.cancelled else { return (nil, nil) }
            control.cancelled = true
            defer { control.leaveQueue = nil }
            return (control.task, control.leaveQueue)
        }
        if let leaveQueue, leaveQueue() {
            events.fail(CancellationError())
        }
        if let task {
            // From a Dispatch thread: FoundationNetworking's `cancel()` waits (`sync`) for the
            // session's work queue, which may be busy for seconds (inflating a large compressed
            // body); blocking a thread of Swift's cooperative pool that long stalls every Task.
            let gate = gate
            DispatchQueue.global().async { gate.cancel(task.task) }
        }
    }

    // MARK: Delegate callbacks, on the session's delegate queue

    /// The final head arrived.
    func receiveHead(_ http: HTTPURLResponse) {
        response = http
        // Read from the fields once made: each of Foundation's lookups copies them all first.
        let headers = SessionDelegate.headers(of: http)
        let length = http.expectedContentLength
        if length >= 0, headers["Content-Encoding"] == nil, headers["Transfer-Encoding"] == nil {
            completeLength = length
        }
        events.head(statusCode: http.statusCode, headers: headers, url: http.url)
        endIfComplete()
    }

    /// Bytes of the body arrived; the body ends here when all its announced bytes are in.
    func receive(_ data: Data) {
        received += Int64(data.count)
        events.chunk(data)
        endIfComplete()
    }

    private func endIfComplete() {
        guard !ended, let completeLength, received >= completeLength else { return }
        ended = true
        events.end()
    }

    /// The task completed, with `error` (already normalised) or without.
    func complete(error: (any Error)?, task: URLSessionTask) {
        if let error {
            events.fail(error)
            return
        }
        if response == nil, let http = task.response as? HTTPURLResponse {
            response = http
            events.head(statusCode: http.statusCode, headers: SessionDelegate.headers(of: http), url: http.url)
        }
        guard response != nil else {
            events.fail(URLError(.networkConnectionLost))
            return
        }
        if !ended {
            ended = true
            events.end()
        }
    }
}

/// Carries a `URLSessionTask` across threads.
struct SessionTask: @unchecked Sendable {  // safe: suspend, resume and cancel are thread-safe
    let task: URLSessionTask
}

/// The session delegate: routes callbacks to each task's ``URLSessionExchange``.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // safe: `states` is Locked
    private let states = Locked<[Int: URLSessionExchange]>([:])
    /// Extra trust and pins; `nil` leaves every server trust challenge to the system.
    let serverTrust: ServerTrustPolicy?

    init(serverTrust: ServerTrustPolicy? = nil) {
        self.serverTrust = serverTrust
        super.init()
    }

    func register(_ state: URLSessionExchange, for identifier: Int) {
        states.withLock { $0[identifier] = state }
    }

    func unregister(_ identifier: Int) {
        _ = states.withLock { $0.removeValue(forKey: identifier) }
    }

    func state(for task: URLSessionTask) -> URLSessionExchange? {
        states.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let state = state(for: dataTask), let http = response as? HTTPURLResponse {
            state.receiveHead(http)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state(for: dataTask)?.receive(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        state(for: task)?.request.body.reportSent(totalBytesSent)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let next = RedirectPolicy.strippingCredentials(request, from: task.currentRequest ?? task.originalRequest)
        #if canImport(FoundationNetworking)
        // A cancelled task is never answered: its cancellation completes it (see CancelGate).
        if let gate = state(for: task)?.gate {
            gate.answerRedirect { completionHandler(next) }
            return
        }
        #endif
        completionHandler(next)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let state = states.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        defer { state.completed() }
        // A declined challenge ends the task as cancelled; its 401 was received and is the answer.
        var error = state.declinedChallenge && state.response != nil ? nil : error
        if error != nil, state.connectionDropped.withLock({ $0 }) { error = URLError(.networkConnectionLost) }
        if let reason = state.trustFailure {
            // The challenge was cancelled because the policy refused the certificate.
            error = ServerTrustFailure.error(.serverCertificateUntrusted, url: state.request.url, reason: reason)
        }
        state.complete(error: error.map { FoundationFault.normalized($0, state: state) }, task: task)
    }

    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        // Read once: each read converts Foundation's dictionary of fields again.
        let fields = response.allHeaderFields
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(fields.count)
        for (name, value) in fields {
            // Strings in practice; a cast costs about half of interpolating them.
            let name = name.base as? String ?? "\(name)"
            let value = value as? String ?? "\(value)"
            // Foundation folds a repeated field into one value; Set-Cookie is split back into
            // its cookies (a comma inside an `Expires` date is not a separator).
            if HTTPHeaders.matches(name, "Set-Cookie") {
                for cookie in SetCookieSplitter.split(value) { headers.append((name: name, value: cookie)) }
            } else {
                headers.append((name: name, value: value))
            }
        }
        return HTTPHeaders(headers)
    }
}

extension SessionDelegate {
    /// Answers HTTP authentication challenges (`WWW-Authenticate: Basic`, `Digest`, …) so that
    /// the 401 reaches the pipeline, which maps it (and refreshes tokens) itself; CoreNetKit never
    /// answers a challenge with stored credentials. On Apple platforms every challenge (TLS too)
    /// gets the system's default handling.
    ///
    /// On Linux, FoundationNetworking (Swift 6.3.1) never completes a task whose 401 challenge
    /// gets `.performDefaultHandling` without a credential (swift-corelibs-foundation #5456), and
    /// `.rejectProtectionSpace` cancels it. By the time it asks, it has already delivered the 401
    /// response and its whole body, so the transport cancels the challenge and returns what it
    /// received. On Apple platforms the default handling delivers the 401 by itself.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // FoundationNetworking challenges only for HTTP authentication (Basic, Digest).
        if let state = state(for: task), state.response != nil {
            state.declinedChallenge = true
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            let rule = serverTrust?.rule(forHost: challenge.protectionSpace.host)
        {
            let (disposition, credential, refusal) = Self.evaluate(challenge, rule: rule)
            if let refusal, let state = state(for: task) { state.trustFailure = refusal }
            completionHandler(disposition, credential)
            return
        }
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}

/// FoundationNetworking's (libcurl's) errors for connection faults, as the `URLError` codes
/// Apple's URLSession and ``AsyncHTTPClientTransport`` use for the same faults, so that both
/// transports end a fault in the same ``BaseServerError`` code.
enum FoundationFault {
    static func normalized(_ error: any Error, state: URLSessionExchange) -> any Error {
        guard let urlError = error as? URLError else { return error }
        let detail = (urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? "").lowercased()
        if let (code, reason) = certificateProblem(detail) {
            return ServerTrustFailure.error(code, url: state.request.url, reason: reason, underlying: urlError)
        }
        let code: URLError.Code
        switch urlError.code {
        case .badServerResponse where state.response == nil:
            // libcurl's "Empty reply from server": the connection closed before any response.
            code = .networkConnectionLost
        case .unsupportedURL where state.response == nil && isHTTP(state.request.url):
            // The URL was sent, so libcurl's "unsupported" is about the response: a status line
            // that is not HTTP ("Received HTTP/0.9 when not allowed", "Unsupported HTTP version in
            // response", "Unsupported response code in HTTP response").
            code = .cannotParseResponse
        case .unknown where state.response == nil && detail.contains("failed writing header"):
            // FoundationNetworking refused a status line it could not parse (`HTTP/2 200`).
            code = .cannotParseResponse
        case .unknown where state.response != nil:
            // The body ended early ("transfer closed with n bytes remaining") or was malformed
            // ("Illegal or missing hexadecimal sequence in chunked-encoding").
            let expected = state.response?.expectedContentLength ?? -1
            let truncated = detail.contains("transfer closed") || (expected >= 0 && state.received < expected)
            code = truncated ? .networkConnectionLost : .cannotParseResponse
        default:
            return error
        }
        return URLError(code, userInfo: [NSUnderlyingErrorKey: urlError])
    }

    private static func isHTTP(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }

    /// libcurl's words for a refused server certificate ("SSL certificate problem: certificate has
    /// expired", "SSL: no alternative certificate subject name matches target host name '…'"), as
    /// the code and reason of a trust failure; `nil` for any other error.
    static func certificateProblem(_ detail: String) -> (URLError.Code, String)? {
        guard detail.contains("ssl certificate problem") || detail.contains("target host name") else { return nil }
        if detail.contains("expired") { return (.serverCertificateHasBadDate, "it has expired") }
        if detail.contains("not yet valid") { return (.serverCertificateNotYetValid, "it is not valid yet") }
        if detail.contains("target host name") {
            return (.serverCertificateUntrusted, "it was issued for another host name")
        }
        if detail.contains("self-signed") || detail.contains("self signed") {
            return (.serverCertificateUntrusted, "it is self-signed and not in the system's trust store")
        }
        if detail.contains("issuer") {
            return (
                .serverCertificateHasUnknownRoot, "it was issued by a certificate authority the system does not trust"
            )
        }
        return (.serverCertificateUntrusted, "it could not be verified")
    }
}
