//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// One member of a fleet that shares a token store, for the cross-process refresh tests and the
// fleet benchmark (internal, never a product). It creates its own AccessSafeRequestManager on the
// store, prints `READY`, waits for `GO` on standard input, sends its requests to the loopback
// server's `/family/protected/:id` all at once, and prints one `RESULT {json}` line.
//
//   corenetkit-fleet-child --base-url http://127.0.0.1:PORT --client NAME --requests 25
//       --store file:/path/tokens.json | postgres:ACCOUNT | memory   [--lease-ms N] [--no-wait]
//
// With `--outbox-enqueue` / `--outbox-drain` it is the outbox tests' child (OutboxChild.swift).
// With `--peak-of URL BUDGET` it instead sends one GET within that body budget and prints the
// outcome and how far its resident memory rose (PeakOfBody.swift), for the memory tests.

@_spi(Testing) import CoreNetKit
import Dispatch
import Foundation

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--peak-of",
    let url = URL(string: CommandLine.arguments[2]), let budget = Int(CommandLine.arguments[3])
{
    print(await PeakOfBody.run(url: url, budget: budget))
    exit(0)
}

if CommandLine.arguments.count > 1, CommandLine.arguments[1].hasPrefix("--outbox-") {
    await OutboxChild.run(CommandLine.arguments)
    exit(0)
}

let arguments = FleetArguments(CommandLine.arguments.dropFirst())
let callbacks = DispatchQueue(label: "fleet-child.callbacks")
let ends = Counter()
let store = try await makeStore(arguments)
let manager = AccessSafeRequestManager()
let configuration = NetworkConfiguration(
    transport: makeTransport(), callbackQueue: callbacks, timeout: 60, accessManager: manager)
manager.configure(
    store: store,
    refresher: FamilyRefresher(baseURL: arguments.baseURL, client: arguments.client, configuration: configuration),
    options: AccessSafeRequestManager.Options(refreshTimeout: .seconds(60), callbackQueue: callbacks))
manager.onSessionExpired { _ in ends.add() }

if arguments.waitForGo {
    FileHandle.standardOutput.write(Data("READY\n".utf8))
    while let line = readLine(), line != "GO" {}
}

let started = Date()
if arguments.reportWaiting {
    // Every request either was rejected and waits for the refresh, or waits for it before it is sent.
    let requests = arguments.requests
    Task {
        await manager.waitUntilWaiting(requests)
        FileHandle.standardOutput.write(Data("WAITING\n".utf8))
    }
}
let outcomes = await withTaskGroup(of: Result<Date, BaseServerError>.self) { group in
    for index in 1...arguments.requests {
        let request = FamilyProtectedRequest(
            baseURL: arguments.baseURL, id: "\(arguments.client)-\(index)", configuration: configuration)
        group.addTask {
            do {
                _ = try await request.performAsync()
                return .success(Date())
            } catch {
                return .failure(error as? BaseServerError ?? BaseServerError(code: .transport, message: "\(error)"))
            }
        }
    }
    var outcomes: [Result<Date, BaseServerError>] = []
    for await outcome in group { outcomes.append(outcome) }
    return outcomes
}
await withCheckedContinuation { done in callbacks.async { done.resume() } }  // session-end handlers ran

var report = FleetReport(
    successes: 0, failures: [:], sessionEnds: ends.value, startedAt: started.millis, lastSuccessAt: nil)
for outcome in outcomes {
    switch outcome {
    case .success(let date):
        report.successes += 1
        report.lastSuccessAt = max(report.lastSuccessAt ?? 0, date.millis)
    case .failure(let error):
        report.failures["\(error.code)", default: 0] += 1
    }
}
let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
FileHandle.standardOutput.write(Data("RESULT \(json)\n".utf8))
exit(0)
