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
final class TaskState: @unchecked Sendable {  // safe: touched only on the session's serial delegate queue
    let request: TransportRequest
    let continuation: CheckedContinuation<TransportResponse, any Error>
    var response: HTTPURLResponse?
    var body = Data()
    var received: Int64 = 0
    var file: FileHandle?
    var fileError: (any Error)?

    init(request: TransportRequest, continuation: CheckedContinuation<TransportResponse, any Error>) {
        self.request = request
        self.continuation = continuation
    }
}

/// The session delegate: routes callbacks to each task's ``TaskState``.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // safe: `states` is Locked
    private let states = Locked<[Int: TaskState]>([:])

    func register(_ state: TaskState, for identifier: Int) {
        states.withLock { $0[identifier] = state }
    }

    private func state(for task: URLSessionTask) -> TaskState? {
        states.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let state = state(for: dataTask) {
            state.response = response as? HTTPURLResponse
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
        completionHandler(
            RedirectPolicy.strippingCredentials(request, from: task.currentRequest ?? task.originalRequest))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let state = states.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        try? state.file?.close()
        let destination = state.request.downloadDestination
        if let error = state.fileError ?? error {
            if let destination { try? FileManager.default.removeItem(at: destination) }
            state.continuation.resume(throwing: error)
            return
        }
        guard let http = state.response ?? task.response as? HTTPURLResponse else {
            if let destination { try? FileManager.default.removeItem(at: destination) }
            state.continuation.resume(throwing: URLError(.badServerResponse))
            return
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(http.allHeaderFields.count)
        for (name, value) in http.allHeaderFields {
            headers.append((name: "\(name)", value: "\(value)"))
        }
        state.continuation.resume(
            returning: TransportResponse(
                statusCode: http.statusCode, headers: HTTPHeaders(headers), body: state.body, url: http.url))
    }
}

/// What happens to credentials when a response redirects.
enum RedirectPolicy {
    static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// `redirect` unchanged when it stays on the origin of `previous`; otherwise without the
    /// credential headers.
    static func strippingCredentials(_ redirect: URLRequest, from previous: URLRequest?) -> URLRequest {
        guard let to = redirect.url, let from = previous?.url, !isSameOrigin(from, to) else { return redirect }
        var stripped = redirect
        for name in credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
