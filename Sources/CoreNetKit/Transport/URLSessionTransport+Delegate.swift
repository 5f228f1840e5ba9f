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

/// One task's exchange: delegate callbacks reported to ``TransportEvents``, and the task the pipeline controls.
// safe: delegate-side `var`s are set before publishing through `SessionDelegate`'s locked table, then touched only
// on the serial delegate queue; what other threads touch is in `control`, under its lock
final class URLSessionExchange: TransportExchange, @unchecked Sendable {
    private struct Control {
        var task: SessionTask?
        var cancelled = false
        /// `false` once the request was let through.
        var leaveQueue: (@Sendable () -> Bool)?
    }

    let request: TransportRequest
    let events: TransportEvents
    let gate = CancelGate()
    private let control = Locked(Control())
    /// Frees the host slot and removes a spooled body; set before publishing.
    var completed: @Sendable () -> Void = {}
    var response: HTTPURLResponse?
    var received: Int64 = 0
    /// `Content-Length` without `Content-Encoding` (libcurl counts inflated bytes) or `Transfer-Encoding`.
    private var completeLength: Int64?
    private var ended = false
    /// An HTTP auth challenge was cancelled: what was received is the answer.
    var declinedChallenge = false
    /// Set on libcurl's thread when it asked to resend the body: the task then ends in `networkConnectionLost`.
    let connectionDropped = Locked(false)
    /// Why the ``ServerTrustPolicy`` refused the certificate.
    var trustFailure: String?

    init(request: TransportRequest, events: TransportEvents) {
        self.request = request
        self.events = events
    }

    // MARK: Control, from any thread

    func waitsInQueue(_ leave: @escaping @Sendable () -> Bool) {
        control.withLock { $0.leaveQueue = leave }
    }

    /// `false` (and the task must not run) if the exchange was cancelled.
    func attach(_ task: URLSessionTask) -> Bool {
        control.withLock { control in
            control.leaveQueue = nil
            guard !control.cancelled else { return false }
            control.task = SessionTask(task: task)
            return true
        }
    }

    func pause() {
        // On Linux resume() restarts the transfer from the first byte, so never pause; the pipeline's hard limit holds.
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
        // Off the cooperative pool: FoundationNetworking's `cancel()` waits on a queue that can be busy for seconds.
        if let task { cancelElsewhere(task) }
    }

    func cancelElsewhere(_ task: SessionTask) {
        let gate = gate
        DispatchQueue.global().async { gate.cancel(task.task) }
    }

    // MARK: Delegate callbacks, on the session's delegate queue

    func receiveHead(_ http: HTTPURLResponse) {
        response = http
        // Look up in our copy: each Foundation lookup copies all fields first.
        let headers = SessionDelegate.headers(of: http)
        let length = http.expectedContentLength
        if length >= 0, headers["Content-Encoding"] == nil, headers["Transfer-Encoding"] == nil {
            completeLength = length
        }
        events.head(statusCode: http.statusCode, headers: headers, url: http.url)
        endIfComplete()
    }

    func receive(_ data: Data) {
        received += Int64(data.count)
        events.chunk(data)
        endIfComplete()
    }

    /// Ends the body, once: when all its announced bytes are in, or when the task `completed`.
    private func endIfComplete(completed: Bool = false) {
        guard !ended, completed || received >= (completeLength ?? .max) else { return }
        ended = true
        events.end()
    }

    func complete(error: (any Error)?, task: URLSessionTask) {
        if let error {
            events.fail(error)
            return
        }
        if response == nil, let http = task.response as? HTTPURLResponse { receiveHead(http) }
        guard response != nil else {
            events.fail(URLError(.networkConnectionLost))
            return
        }
        endIfComplete(completed: true)
    }
}

/// Carries a `URLSessionTask` across threads.
struct SessionTask: @unchecked Sendable {  // safe: suspend, resume and cancel are thread-safe
    let task: URLSessionTask
}

/// Routes the session's callbacks to each task's ``URLSessionExchange``.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // safe: `states` is Locked
    private let states = Locked<[Int: URLSessionExchange]>([:])
    /// `nil` leaves every server trust challenge to the system.
    let serverTrust: ServerTrustPolicy?

    init(serverTrust: ServerTrustPolicy?) {
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
        var next = RedirectPolicy.strippingCredentials(request, from: task.currentRequest ?? task.originalRequest)
        if let target = next.url, let from = response.url ?? task.currentRequest?.url,
            let cookie = state(for: task)?.events.driver.redirectCookie(
                to: target, from: from, headers: SessionDelegate.headers(of: response))
        {
            next.setValue(cookie, forHTTPHeaderField: "Cookie")
        }
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
            error = ServerTrustFailure.error(.serverCertificateUntrusted, url: state.request.url, reason: reason)
        }
        state.complete(error: error.map { FoundationFault.normalized($0, state: state) }, task: task)
    }

    /// libcurl found a reused connection dead and asks to rewind the body. FoundationNetworking (Swift 6.3), given
    /// no stream, would resend the head alone and wait out the timeout: the task ends in `connectionLost` instead.
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        completionHandler(nil)
        guard let state = state(for: task) else { return }
        state.connectionDropped.withLock { $0 = true }
        // Called on the work queue `cancel()` waits for: cancel from another thread after returning.
        state.cancelElsewhere(SessionTask(task: task))
    }

    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        // Read once: each read converts Foundation's dictionary of fields again.
        let fields = response.allHeaderFields
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(fields.count)
        for (name, value) in fields {
            // Strings in practice; a cast is cheaper than interpolating.
            let name = name.base as? String ?? "\(name)"
            let value = value as? String ?? "\(value)"
            // Foundation folds repeated fields; split Set-Cookie back into its cookies.
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
    /// Lets 401s reach the pipeline; never answers with stored credentials. Apple platforms: default handling,
    /// except server trust with a policy rule. On Linux a 401 task given `.performDefaultHandling` never completes
    /// (swift-corelibs-foundation #5456), but the 401 and its body have arrived: the challenge is cancelled.
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

/// libcurl's connection-fault errors as the `URLError` codes Apple's URLSession and `AsyncHTTPClientTransport` use.
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
        case .unsupportedURL
        where state.response == nil && ["http", "https"].contains(state.request.url.scheme?.lowercased()):
            // The URL was sent, so "unsupported" means a non-HTTP status line ("Received HTTP/0.9 when not allowed").
            code = .cannotParseResponse
        case .unknown where state.response == nil && detail.contains("failed writing header"):
            // FoundationNetworking refused a status line it could not parse (`HTTP/2 200`).
            code = .cannotParseResponse
        case .unknown where state.response != nil:
            // Body ended early ("transfer closed with n bytes remaining") or bad chunking.
            let expected = state.response?.expectedContentLength ?? -1
            let truncated = detail.contains("transfer closed") || (expected >= 0 && state.received < expected)
            code = truncated ? .networkConnectionLost : .cannotParseResponse
        default:
            return error
        }
        return URLError(code, userInfo: [NSUnderlyingErrorKey: urlError])
    }

    /// The code and reason for libcurl's refused-certificate messages; `nil` for any other error.
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
