//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKit
import Foundation

/// `GET /users`: the list under the key "items".
final class GetUsersRequest: BaseServerRequest<[User]>, @unchecked Sendable {
    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/users")
    }
    override var modelKeyPath: String? { "items" }
}

/// `GET /users/:id`.
final class GetUserRequest: BaseServerRequest<User>, @unchecked Sendable {
    private let id: Int
    init(id: Int) { self.id = id }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/users/\(id)", requestId: "user-\(id)")
    }
}

/// `POST /users`.
final class CreateUserRequest: BaseServerRequest<User>, @unchecked Sendable {
    private let user: NewUser
    init(user: NewUser) { self.user = user }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .post, baseUrl: API.base, relativeUrl: "/users", parameters: .json(user))
    }
}

/// `POST /orders`: the demo server always refuses it with an app-level error.
final class PlaceOrderRequest: BaseServerRequest<EmptyResponse>, @unchecked Sendable {
    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .post, baseUrl: API.base, relativeUrl: "/orders", parameters: .jsonObject(["item": 42]))
    }
}

/// `GET /delay/:ms`: a slow endpoint, for cancellation.
final class SlowRequest: BaseServerRequest<JSON>, @unchecked Sendable {
    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: API.base, relativeUrl: "/delay/5000", requestId: "slow-report")
    }
}

/// The service layer the app's screens call.
struct UsersService {
    func users() -> ActiveRequestContext<[User]> { GetUsersRequest().perform() }
    func user(id: Int) -> ActiveRequestContext<User> { GetUserRequest(id: id).perform() }
    func create(_ user: NewUser) -> ActiveRequestContext<User> { CreateUserRequest(user: user).perform() }
    func placeOrder() -> ActiveRequestContext<EmptyResponse> { PlaceOrderRequest().perform() }
    func slowReport() -> ActiveRequestContext<JSON> { SlowRequest().perform() }
}

/// A GET for `path` on `base` under `policy`, with `configuration`: the demo steps that show one
/// feature at a time (caching, freshness, retry) share it.
final class GetRequest<Model: Decodable & Sendable>: BaseServerRequest<Model>, @unchecked Sendable {
    private let base: URL
    private let path: String
    private let policy: CachePolicy

    init(_ base: URL, _ path: String, _ policy: CachePolicy = .serverOnly, configuration: NetworkConfiguration) {
        self.base = base
        self.path = path
        self.policy = policy
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: base, relativeUrl: path, cachePolicy: policy)
    }
}
