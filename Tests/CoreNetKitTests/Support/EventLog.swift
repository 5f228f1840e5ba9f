//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

@testable import CoreNetKit

/// Records every event a context delivers, with the queue it ran on, and lets a test await the
/// terminal one.
final class EventLog<Model: Sendable>: Sendable {
    enum Event: Sendable {
        case cache(Model)
        case success(Model)
        case failure(any Error)
        case cancel
        case completed
    }

    private let events = Locked<[Event]>([])
    private let terminal = Once<Event>()
    private let cachedModel = Once<Model>()
    private let queueKey: DispatchSpecificKey<String>?
    private let wrongQueue = Locked(0)

    /// Attaches handlers for every event to `context`; `queue`, when given, is checked as the
    /// one handlers must run on.
    init(_ context: RequestContext<Model>, expectQueue queue: DispatchQueue? = nil) {
        if let queue {
            let key = DispatchSpecificKey<String>()
            queue.setSpecific(key: key, value: "expected")
            queueKey = key
        } else {
            queueKey = nil
        }
        context
            .onCacheSuccess { [self] in
                record(.cache($0))
                cachedModel.fire($0)
            }
            .onSuccess { [self] in
                record(.success($0))
                terminal.fire(.success($0))
            }
            .onError { [self] in
                record(.failure($0))
                terminal.fire(.failure($0))
            }
            .onCancel { [self] in
                record(.cancel)
                terminal.fire(.cancel)
            }
            .onCompleted { [self] _ in record(.completed) }
    }

    private func record(_ event: Event) {
        if let queueKey, DispatchQueue.getSpecific(key: queueKey) == nil { wrongQueue.withLock { $0 += 1 } }
        events.withLock { $0.append(event) }
    }

    /// Every event so far, in order.
    var all: [Event] { events.withLock { $0 } }
    /// Event names so far, in order: cache, success, failure, cancel, completed.
    var names: [String] {
        all.map {
            switch $0 {
            case .cache: "cache"
            case .success: "success"
            case .failure: "failure"
            case .cancel: "cancel"
            case .completed: "completed"
            }
        }
    }
    /// How many handlers ran off the expected queue.
    var handlersOffQueue: Int { wrongQueue.withLock { $0 } }

    /// Awaits the terminal event (bounded).
    func waitForTerminal(_ seconds: Double = 30) async throws -> Event {
        try await withTimeout(seconds, "a terminal event") { await self.terminal.value }
    }

    /// Awaits the cached model (bounded).
    func cached(_ seconds: Double = 30) async throws -> Model {
        try await withTimeout(seconds, "the cached model") { await self.cachedModel.value }
    }

    /// Awaits success and returns the model; fails the test's expectation otherwise.
    func success(_ seconds: Double = 30) async throws -> Model {
        switch try await waitForTerminal(seconds) {
        case .success(let model): return model
        case .failure(let error): throw error
        default: throw TimedOut(what: "success (got cancel)")
        }
    }

    /// Awaits failure and returns the error.
    func failure(_ seconds: Double = 30) async throws -> any Error {
        switch try await waitForTerminal(seconds) {
        case .failure(let error): return error
        case .success(let model): throw UnexpectedSuccess(model: "\(model)")
        default: throw TimedOut(what: "failure (got cancel)")
        }
    }
}

struct UnexpectedSuccess: Error { let model: String }
