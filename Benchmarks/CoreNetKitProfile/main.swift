//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// A fixed workload for `valgrind --tool=callgrind`, which counts instructions and so is stable on
// a noisy machine: N requests of the 20-item page over a StubTransport, through `performAsync()`,
// through `perform()` → `value`, or `JSONDecoder` alone. Run it with two values of N; the
// difference of the totals divided by the difference of N is the cost of one request.
//
//     swift build -c release --product corenetkit-profile
//     objcopy --strip-debug .build/release/corenetkit-profile /tmp/corenetkit-profile
//     valgrind --tool=callgrind /tmp/corenetkit-profile async 2000
//
// valgrind 3.19 cannot read this toolchain's DWARF (hence the stripped copy) and dies in
// `dispatch_main`, which an async `main` reaches on Linux: so `main` here is synchronous and
// blocks on a semaphore while a detached Task runs the workload.
//
// Usage: corenetkit-profile (decode|async|context|chain3|chain10|async-nodeadline|context-nodeadline|
//                            decode-tiny|async-tiny|context-tiny|async-tiny-nodeadline|context-tiny-nodeadline|
//                            async-tiny-cache|
//                            floor-tiny) COUNT
// (`…-nodeadline`: `timeout = .infinity` and no idle timeout, so no deadline races the exchange;
// `…-tiny`: a one-field body, `{"total":20}`, so the profile shows the pipeline rather than the decode;
// `floor-tiny`: `performAsync()` in a Task of its own, handed back through a continuation, the
// least a `perform()` → `value` can cost)

import CoreNetKit
import Dispatch
import Foundation

struct User: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
}

struct UserPage: Codable, Sendable {
    let items: [User]
    let total: Int
}

/// A one-field body: its decode is small, so what the pipeline itself costs stands out in the profile.
struct Tiny: Codable, Sendable {
    let total: Int
}

/// The service's base URL, parsed once as a service keeps it (parsing it in every request would
/// count the caller's `URL(string:)` as the library's cost).
let profileBase = URL(string: "http://profile.invalid")!

final class TinyRequest: BaseServerRequest<Tiny>, @unchecked Sendable {
    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: profileBase, relativeUrl: "/bench/tiny")
    }
}

final class PageRequest: BaseServerRequest<UserPage>, @unchecked Sendable {
    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: profileBase, relativeUrl: "/bench/page")
    }
}

struct PassThrough: Interceptor {
    func intercept(_ request: ServerRequest, next: InterceptorChain) async throws -> ServerResponse {
        try await next.proceed(request)
    }
}

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "async"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 1000 : 1000
let users = (1...20).map { User(id: $0, name: "User \($0)", email: "user\($0)@example.com") }
let tiny = mode.contains("-tiny")
let page = tiny ? Data(#"{"total":20}"#.utf8) : try JSONEncoder().encode(UserPage(items: users, total: 20))
var configuration = NetworkConfiguration(
    transport: StubTransport.response(status: 200, body: page, headers: ["Content-Type": "application/json"]),
    callbackQueue: DispatchQueue(label: "profile.callbacks"), taskPool: TaskPool())
if mode == "chain3" { configuration.interceptors += Array(repeating: PassThrough(), count: 3) }
if mode.contains("-nodeadline") { configuration.timeout = .infinity }
// `…-cache`: a cache adapter in memory, the request under the default `serverOnly` (what a cache
// stage costs a request that only stores).
if mode.contains("-cache") { configuration.cacheAdapter = UrlCacheAdapter(memoryCapacity: 4 << 20, diskCapacity: 0) }
/// A monitor that implements nothing: what having monitors at all costs.
struct SilentMonitor: NetworkEventMonitor {}
// `page-monitor` / `page-har`: the 20-item page with a silent monitor, or with a HARRecorder.
let recorder = mode == "page-har" ? try HARRecorder(file: URL(fileURLWithPath: "/tmp/corenetkit-profile.har")) : nil
if mode == "page-monitor" { configuration.monitors = [SilentMonitor()] }
if let recorder { configuration.monitors = [recorder] }
if mode == "chain10" { configuration.interceptors += Array(repeating: PassThrough(), count: 10) }
let request = PageRequest(configuration: configuration)
let tinyRequest = TinyRequest(configuration: configuration)

/// The loop, off the main actor: awaiting a nonisolated call from top-level code would hop
/// between the main thread and the pool twice per request and measure the hops.
nonisolated func run(
    _ mode: String, _ count: Int, _ request: PageRequest, _ tinyRequest: TinyRequest, _ page: Data
) async throws -> Int {
    var total = 0
    switch mode {
    case "decode-tiny":
        let decoder = JSONDecoder()
        for _ in 0..<count { total += try decoder.decode(Tiny.self, from: page).total }
    case "async-tiny", "async-tiny-nodeadline", "async-tiny-cache":
        for _ in 0..<count { total += try await tinyRequest.performAsync().total }
    case "context-tiny", "context-tiny-nodeadline":
        for _ in 0..<count { total += try await tinyRequest.perform().value.total }
    case "floor-tiny":
        for _ in 0..<count { total += try await handedOver(tinyRequest).total }
    case "decode":
        let decoder = JSONDecoder()
        for _ in 0..<count { total += try decoder.decode(UserPage.self, from: page).items.count }
    case "context", "context-nodeadline":
        for _ in 0..<count { total += try await request.perform().value.items.count }
    default:
        for _ in 0..<count { total += try await request.performAsync().items.count }
    }
    return total
}

/// The least `perform()` → `value` can cost beyond `performAsync()`, written here for one model
/// type: `performAsync()` in a Task of its own, its result handed to the caller through a lock
/// and a continuation, awaited under a cancellation handler. What `perform()` costs beyond this
/// is its context, broadcast and pool machinery.
func handedOver(_ request: TinyRequest) async throws -> Tiny {
    let handoff = Handoff()
    let task = Task<Void, any Error> {
        do {
            handoff.finish(.success(try await request.performAsync()))
        } catch {
            handoff.finish(.failure(error))
        }
    }
    return try await withTaskCancellationHandler {
        try await withUnsafeThrowingContinuation { handoff.await($0) }
    } onCancel: {
        task.cancel()
    }
}

/// A result handed from one Task to another: the first of `finish` and `await` keeps its side
/// under the lock, the second completes the hand-over.
final class Handoff: @unchecked Sendable {  // safe: both fields are only touched under `lock`
    private let lock = NSLock()
    private var result: Result<Tiny, any Error>?
    private var waiter: UnsafeContinuation<Tiny, any Error>?

    func finish(_ result: Result<Tiny, any Error>) {
        lock.lock()
        guard let waiter else {
            self.result = result
            lock.unlock()
            return
        }
        self.waiter = nil
        lock.unlock()
        waiter.resume(with: result)
    }

    func await(_ waiter: UnsafeContinuation<Tiny, any Error>) {
        lock.lock()
        guard let result else {
            self.waiter = waiter
            lock.unlock()
            return
        }
        lock.unlock()
        waiter.resume(with: result)
    }
}

/// The workload's outcome, handed from the detached Task to the blocked main thread.
final class Outcome: @unchecked Sendable {  // safe: written before `done.signal()`, read after `done.wait()`
    var total: Result<Int, any Error> = .success(0)
}

let outcome = Outcome()
let done = DispatchSemaphore(value: 0)
Task.detached {
    do {
        outcome.total = .success(try await run(mode, count, request, tinyRequest, page))
    } catch {
        outcome.total = .failure(error)
    }
    done.signal()
}
done.wait()
recorder?.close()  // the entries written on the recorder's queue count too
NetworkMonitorQueue.shared.sync {}
print("\(mode): \(count) requests, \(try outcome.total.get()) items")
