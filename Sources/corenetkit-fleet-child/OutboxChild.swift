//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import Dispatch
import Foundation

/// The outbox tests' child process:
///
///     corenetkit-fleet-child --outbox-enqueue STORE BASE_URL COUNT QUEUES [enqueue-first]
///     corenetkit-fleet-child --outbox-drain STORE BASE_URL
///
/// `STORE` is `file:PATH` or `postgres:NAME`. `--outbox-enqueue` starts the outbox, then queues
/// change `i` (0..<COUNT) as `POST /outbox/apply/q<i % QUEUES>/<i>` in queue `q<i % QUEUES>`,
/// printing `ENQ <i>` once each `enqueue` returned (the entry is on disk) — with `enqueue-first`,
/// it starts the outbox only after the last one — then drains like
/// `--outbox-drain`: it waits until no entry is pending and prints `DRAINED <outcomes>`.
enum OutboxChild {
    static func run(_ arguments: [String]) async {
        do {
            try await runThrowing(arguments)
        } catch {
            FileHandle.standardError.write(Data("corenetkit-fleet-child: \(error)\n".utf8))
            exit(1)
        }
    }

    private static func runThrowing(_ arguments: [String]) async throws {
        guard arguments.count >= 4, let baseURL = URL(string: arguments[3]) else {
            FileHandle.standardError.write(Data("corenetkit-fleet-child: bad outbox arguments\n".utf8))
            exit(2)
        }
        let configuration = NetworkConfiguration(
            transport: makeTransport(), callbackQueue: DispatchQueue(label: "outbox-child.callbacks"), timeout: 30)
        let store = try await makeOutboxStore(arguments[2])
        let outbox = Outbox(store: store, configuration: configuration, options: Outbox.Options(concurrency: 4))
        outbox.register("apply", as: AppliedChange.self)
        let outcomes = outbox.outcomes()
        let delivered = Task {
            var count = 0
            for await _ in outcomes { count += 1 }
            return count
        }
        // `enqueue-first`: every change is queued before sending starts (a backlog to be killed in).
        let sendsWhileQueueing = !arguments.contains("enqueue-first")
        if sendsWhileQueueing { outbox.start() }
        if arguments[1] == "--outbox-enqueue", arguments.count >= 6, let count = Int(arguments[4]),
            let queues = Int(arguments[5])
        {
            for index in 0..<count {
                let queue = "q\(index % queues)"
                try await outbox.enqueue(
                    ServerRequest(
                        method: .post, baseUrl: baseURL, relativeUrl: "/outbox/apply/\(queue)/\(index)",
                        parameters: .jsonObject(["index": .int(index)])),
                    kind: "apply", queue: queue)
                FileHandle.standardOutput.write(Data("ENQ \(index)\n".utf8))
            }
        }
        if !sendsWhileQueueing { outbox.start() }
        // Other processes may be sending entries of a shared store: look until none is pending.
        while try await outbox.count() > 0 { try await Task.sleep(for: .milliseconds(20)) }
        await outbox.stop()
        #if Postgres
        await (store as? PostgresOutboxStore)?.close()
        #endif
        FileHandle.standardOutput.write(Data("DRAINED \(await delivered.value)\n".utf8))
    }

    private static func makeOutboxStore(_ name: String) async throws -> any OutboxStore {
        if name.hasPrefix("postgres:") {
            #if Postgres
            return try await PostgresOutboxStore(
                configuration: PostgresEnvironment.configuration(), outbox: String(name.dropFirst(9)))
            #else
            fatalError("built without the Postgres trait")
            #endif
        }
        return try FileOutboxStore(url: URL(fileURLWithPath: String(name.dropFirst(5))))
    }
}

/// `/outbox/apply`'s answer.
struct AppliedChange: Decodable, Sendable {
    let queue: String
    let seq: Int
}
