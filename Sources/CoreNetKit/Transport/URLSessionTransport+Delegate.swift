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

/// The in-flight state of one task: where its body goes and who waits for it.
///
/// Its mutable fields need no lock of their own, for two reasons that hold together:
/// - It is created by the sending Task and published to the delegate only through
///   `SessionDelegate`'s locked table, and every delegate callback looks it up through that same
///   lock, so the creation happens before any callback reads it.
/// - After that, its `var`s are read and written only by delegate callbacks, and URLSession runs
///   those one at a time on the session's delegate queue, an `OperationQueue` with
///   `maxConcurrentOperationCount = 1` (see `URLSessionTransport.init`).
/// Other threads (the cancellation handler) touch only its `let`s and `gate`, which has a lock.
// safe: see above — published under the delegate's lock, then mutated only on one serial queue
final class TaskState: @unchecked Sendable {
    let request: TransportRequest
    let continuation: CheckedContinuation<TransportResponse, any Error>
    let gate: CancelGate
    var response: HTTPURLResponse?
    var body = Data()
    var received: Int64 = 0
    var file: FileHandle?
    var fileError: (any Error)?
    /// Set when FoundationNetworking was told to give up an HTTP authentication challenge: the
    /// response and body already received are then the answer (see `urlSession(_:task:didReceive:completionHandler:)`).
    var declinedChallenge = false
    /// Set (from libcurl's thread) when libcurl asked to send the body again because the
    /// connection was dropped: the task then ends in `networkConnectionLost`.
    let connectionDropped = Locked(false)

    init(
        request: TransportRequest, continuation: CheckedContinuation<TransportResponse, any Error>, gate: CancelGate
    ) {
        self.request = request
        self.continuation = continuation
        self.gate = gate
    }
}

/// The session delegate: routes callbacks to each task's ``TaskState``.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // safe: `states` is Locked
    private let states = Locked<[Int: TaskState]>([:])

    func register(_ state: TaskState, for identifier: Int) {
        states.withLock { $0[identifier] = state }
    }

    func state(for task: URLSessionTask) -> TaskState? {
        states.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let state = state(for: dataTask) {
            state.response = response as? HTTPURLResponse
            if let report = state.request.responseHeadReceived, let http = state.response {
                report(http.statusCode, Self.headers(of: http))
            }
            // Only a successful body goes to the file; an error body stays in memory for the validators.
            if let destination = state.request.downloadDestination, let status = state.response?.statusCode,
                (200..<300).contains(status)
            {
                do {
                    let manager = FileManager.default
                    try? manager.removeItem(at: destination)
                    guard manager.createFile(atPath: destination.path, contents: nil) else {
                        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
                    }
                    state.file = try FileHandle(forWritingTo: destination)
                } catch {
                    state.fileError = error
                    completionHandler(.cancel)
                    return
                }
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let state = state(for: dataTask) else { return }
        if let file = state.file {
            do { try file.write(contentsOf: data) } catch {
                state.fileError = error
                dataTask.cancel()
                return
            }
        } else if let receive = state.request.receivesBodyChunk, let status = state.response?.statusCode,
            (200..<300).contains(status)
        {
            receive(data)
        } else {
            state.body.append(data)
        }
        state.received += Int64(data.count)
        state.request.downloadProgress?(state.received, state.response?.expectedContentLength ?? -1)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        state(for: task)?.request.uploadProgress?(totalBytesSent, totalBytesExpectedToSend)
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
        try? state.file?.close()
        let destination = state.request.downloadDestination
        // A declined challenge ends the task as cancelled; its 401 was received and is the answer.
        var error = state.declinedChallenge && state.response != nil && state.fileError == nil ? nil : error
        if error != nil, state.connectionDropped.withLock({ $0 }) { error = URLError(.networkConnectionLost) }
        if let error = state.fileError ?? error {
            // What arrived stays for a resume, unless writing it failed.
            if let destination, !state.request.keepsPartialDownload || state.fileError != nil {
                try? FileManager.default.removeItem(at: destination)
            }
            state.continuation.resume(throwing: FoundationFault.normalized(error, state: state))
            return
        }
        guard let http = state.response ?? task.response as? HTTPURLResponse else {
            if let destination { try? FileManager.default.removeItem(at: destination) }
            state.continuation.resume(throwing: URLError(.networkConnectionLost))
            return
        }
        state.continuation.resume(
            returning: TransportResponse(
                statusCode: http.statusCode, headers: Self.headers(of: http), body: state.body, url: http.url))
    }

    private static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(response.allHeaderFields.count)
        for (name, value) in response.allHeaderFields {
            headers.append((name: "\(name)", value: "\(value)"))
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
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}

/// FoundationNetworking's (libcurl's) errors for connection faults, as the `URLError` codes
/// Apple's URLSession and ``AsyncHTTPClientTransport`` use for the same faults, so that both
/// transports end a fault in the same ``BaseServerError`` code.
enum FoundationFault {
    static func normalized(_ error: any Error, state: TaskState) -> any Error {
        guard let urlError = error as? URLError else { return error }
        let detail = (urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? "").lowercased()
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
}
