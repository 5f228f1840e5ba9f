//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import CoreNetKit

/// Which errors mean "the server cannot be reached": what lets the cache answer offline.
@Suite(.timeLimit(.minutes(3))) struct UnreachableErrorTests {
    @Test(arguments: [
        BaseServerError.Code.noInternetConnection, .cannotConnect, .connectionLost, .timeout,
    ])
    func connectionFailuresMeanUnreachable(_ code: BaseServerError.Code) {
        #expect(BaseServerError(code: code).meansUnreachable)
    }

    @Test func aRefreshThatCouldNotReachTheServerMeansUnreachable() {
        let error = BaseServerError.tokenRefreshFailed(BaseServerError(code: .cannotConnect))

        #expect(error.meansUnreachable)
    }

    @Test func answersAndRefusalsDoNotMeanUnreachable() {
        #expect(!BaseServerError.badStatus(500, body: nil).meansUnreachable)
        #expect(!BaseServerError(code: .unauthorized).meansUnreachable)
        #expect(!BaseServerError.tokenRefreshFailed(BaseServerError(code: .unauthorized)).meansUnreachable)
        #expect(!BaseServerError.cancelled.meansUnreachable)
    }

    @Test func aBaseServerErrorPassesTheMapperUnchanged() {
        let original = BaseServerError.server(message: "Nope", code: "E1", statusCode: 422, body: nil)

        let mapped = TransportErrorMapper.map(original)

        #expect(mapped.code == .server)
        #expect(mapped.serverCode == "E1")
        #expect(mapped.statusCode == 422)
    }
}
