//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import Foundation

/// `corenetkit-fleet-child --peak-of URL BUDGET`: one GET of `URL` with
/// `maximumResponseBodySize = BUDGET`, in a process of its own, so that the memory tests measure
/// the request alone and not the test suites running beside them. Prints `ok` or the failure's
/// error code, then how far the peak resident memory rose during the request, in bytes.
enum PeakOfBody {
    static func run(url: URL, budget: Int) async -> String {
        var configuration = NetworkConfiguration(transport: makeTransport(), timeout: 60)
        configuration.maximumResponseBodySize = budget
        let request = RawRequest(url: url, configuration: configuration)
        let before = resetPeak()
        let outcome: String
        do {
            _ = try await request.performAsync()
            outcome = "ok"
        } catch {
            outcome = (error as? BaseServerError).map { "\($0.code)" } ?? "\(error)"
        }
        return "\(outcome) \(status("VmHWM") - before)"
    }

    /// Resets the kernel's peak-RSS mark to the current RSS and returns the current RSS.
    private static func resetPeak() -> Int {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return status("VmRSS")
    }

    /// A `/proc/self/status` field in bytes.
    private static func status(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
        return (line?.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
}

/// A GET whose model is the response itself.
final class RawRequest: BaseServerRequest<ServerResponse>, @unchecked Sendable {
    private let url: URL

    init(url: URL, configuration: NetworkConfiguration) {
        self.url = url
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() throws -> ServerRequest {
        ServerRequest(method: .get, baseUrl: url, relativeUrl: "")
    }

    override func handle(serverResponse: ServerResponse) throws -> ServerResponse { serverResponse }
}
