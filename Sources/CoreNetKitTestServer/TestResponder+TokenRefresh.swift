//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// Token-refresh routes: `ANY /protected-after/:gate/:id`.
extension TestResponder {
    /// `ANY /protected-after/:gate/:id`: waits at `gate` (see `TestServer.release(_:)`), then
    /// answers like `/protected/:id`, checking the token against the state at that moment. So a
    /// request sent with a token that was valid can be rejected once the token has changed.
    func protectedAfterGate(_ gate: String, id: String, request: Request) async -> Response {
        await self.core.passGate(gate)
        return self.protected(id, request: request)
    }
}
