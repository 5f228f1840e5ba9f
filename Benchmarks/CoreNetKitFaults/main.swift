//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

// Measures, in real time and memory, how each hostile-server fault ends on each transport:
//
//     swift run -c release --traits AsyncHTTPClient corenetkit-faults
//
// The raw fault server runs in this process on 127.0.0.1 (it only writes scripted bytes). Each
// fault is sent once per transport with `timeout: 3` and a 64 MiB body budget; the line gives
// the error code, the time from sending to the terminal event, and the growth of the process's
// peak RSS (reset before each request through /proc/self/clear_refs).

import CoreNetKit
import CoreNetKitTestServer
import Dispatch
import Foundation

struct Probe: Decodable, Sendable {}

final class ProbeRequest: BaseServerRequest<Data>, @unchecked Sendable {
    private let request: ServerRequest

    init(_ request: ServerRequest, configuration: NetworkConfiguration) {
        self.request = request
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() throws -> ServerRequest { request }
}

func measure(_ fault: FaultServer.Fault, on transport: any Transport, server: FaultServer) async -> String {
    let configuration = NetworkConfiguration(
        transport: transport, callbackQueue: DispatchQueue(label: "faults"), timeout: 3, taskPool: TaskPool())
    let request = ServerRequest(method: .get, baseUrl: server.baseURL, relativeUrl: "/fault/\(fault.rawValue)")
    let before = ResidentMemory.resetPeak()
    let start = ContinuousClock.now
    let outcome: String
    do {
        let data = try await ProbeRequest(request, configuration: configuration).performAsync()
        outcome = "success (\(data.count) bytes)"
    } catch let error as BaseServerError {
        outcome = "\(error.code)"
    } catch {
        outcome = "untyped \(error)"
    }
    let elapsed = ContinuousClock.now - start
    let grown = max(0, ResidentMemory.peak() - before) / (1 << 20)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return "| \(fault.rawValue) | \(outcome) | \(String(format: "%.2f", seconds)) s | +\(grown) MB |"
}

/// Pulls the `gigabyte` fault's body through `transport` with a pause per chunk.
func slowRead(on transport: any Transport, name: String, server: FaultServer) async -> String {
    let before = ResidentMemory.resetPeak()
    var read = 0
    var outcome = "complete"
    do {
        let request = TransportRequest(
            method: .get, url: server.baseURL.appendingPathComponent("fault/gigabyte"), timeout: .infinity)
        let response = try await transport.send(request)
        for try await chunk in response.body {
            read += chunk.count
            if read % (64 << 10) < chunk.count { try await Task.sleep(for: .milliseconds(1)) }
        }
    } catch let error as BaseServerError {
        outcome = "\(error.code): \(error.message ?? "")"
    } catch {
        outcome = "\(error)"
    }
    let grown = max(0, ResidentMemory.peak() - before) / (1 << 20)
    return "| \(name) | \(outcome) | \(read >> 20) MiB | +\(grown) MB |"
}

let done = DispatchSemaphore(value: 0)
Task.detached {
    let server = try await FaultServer.start()
    var transports: [(String, any Transport)] = [("URLSession", URLSessionTransport())]
    #if AsyncHTTPClient
    transports.append(("AsyncHTTPClient", AsyncHTTPClientTransport()))
    #endif
    let faults: [FaultServer.Fault] = [
        .slowHeaders, .headOnly, .stalledBody, .trickledBody, .lyingLength, .endlessEarlyHints, .gzipBomb,
    ]
    for (name, transport) in transports {
        print(
            "\n\(name) (timeout 3 s, budget 64 MiB)\n\n| fault | outcome | time | peak RSS growth |\n|---|---|---|---|")
        for fault in faults {
            print(await measure(fault, on: transport, server: server))
        }
    }
    print("\nA 1 GiB body read by a slow reader (1 ms pause per 64 KiB chunk), at the transport boundary\n")
    print("| transport | outcome | read | peak RSS growth |\n|---|---|---|---|")
    for (name, transport) in transports {
        print(await slowRead(on: transport, name: name, server: server))
    }
    await server.stop()
    done.signal()
}
done.wait()
