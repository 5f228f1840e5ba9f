//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Dispatch
import Foundation
import Testing

@testable import CoreNetKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(3))) struct ResponseMappingTests {
    @Test func getMapsTheBodyToModelsUnderAKeyPath() async throws {
        try await withTestServer { server in
            let request = TestRequest<[User]>(configuration: testConfiguration(), keyPath: "items") {
                server.get("/users")
            }

            let users = try await request.performAsync()

            #expect(users.count == 5)
            #expect(users.first == User(id: 1, name: "Ada Lovelace", email: "ada@example.com"))
        }
    }

    @Test func scalarsAreReadAtANestedKeyPath() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration()

            let count = try await TestRequest<Int>(configuration: configuration, keyPath: "response.count") {
                server.get("/count")
            }.performAsync()
            let name = try await TestRequest<String>(configuration: configuration, keyPath: "response.name") {
                server.get("/count")
            }.performAsync()
            let ratio = try await TestRequest<Double>(configuration: configuration, keyPath: "response.ratio") {
                server.get("/count")
            }.performAsync()
            let ok = try await TestRequest<Bool>(configuration: configuration, keyPath: "response.ok") {
                server.get("/count")
            }.performAsync()
            let items = try await TestRequest<[User]>(configuration: configuration, keyPath: "response.items") {
                server.get("/count")
            }.performAsync()

            #expect(count == 42)
            #expect(name == "answers")
            #expect(ratio == 0.5)
            #expect(ok)
            #expect(items.map(\.id) == [1])
        }
    }

    @Test func missingKeyEndsInCantMappingNamingThePath() async throws {
        try await withTestServer { server in
            let request = TestRequest<[User]>(configuration: testConfiguration(), keyPath: "response.missing") {
                server.get("/count")
            }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .cantMapping)
            #expect(error.keyPath == "response.missing")
            #expect(error.errorDescription?.contains("response.missing") == true)
        }
    }

    @Test func malformedJSONEndsInCantMappingNamingThePath() async throws {
        try await withTestServer { server in
            let request = TestRequest<[Int]>(configuration: testConfiguration(), keyPath: "items") {
                server.get("/malformed")
            }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .cantMapping)
            #expect(error.keyPath == "items")
            #expect(error.message == "the body is not valid JSON")
        }
    }

    @Test func wrongTypeNamesTheFullPathOfTheBadValue() async throws {
        struct Strict: Decodable, Sendable {
            let id: Int
            let name: Int
        }
        try await withTestServer { server in
            let request = TestRequest<[Strict]>(configuration: testConfiguration(), keyPath: "items") {
                server.get("/users")
            }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .cantMapping)
            #expect(error.keyPath == "items[0].name")
        }
    }

    @Test func noContentGivesTheEmptyModel() async throws {
        try await withTestServer { server in
            let request = TestRequest<EmptyResponse>(configuration: testConfiguration()) { server.get("/no-content") }

            let model = try await request.performAsync()

            #expect(model == EmptyResponse())
        }
    }

    @Test func htmlServerErrorPageEndsInBadStatusWithTheBody() async throws {
        try await withTestServer { server in
            let request = TestRequest<[User]>(configuration: testConfiguration()) { server.get("/html500") }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .badStatus)
            #expect(error.statusCode == 500)
            #expect(String(decoding: error.body ?? Data(), as: UTF8.self).contains("<h1>Internal Server Error</h1>"))
            #expect(error.errorDescription == "The server answered with status 500.")
        }
    }

    @Test func jsonErrorBodyBecomesServerErrorWithMessageAndCode() async throws {
        try await withTestServer { server in
            let request = TestRequest<User>(configuration: testConfiguration()) { server.get("/users/9") }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .server)
            #expect(error.statusCode == 404)
            #expect(error.serverCode == "USER_NOT_FOUND")
            #expect(error.errorDescription == "No user with id 9")
        }
    }

    @Test func unauthorizedStatusEndsInUnauthorized() async throws {
        try await withTestServer { server in
            let request = TestRequest<EmptyResponse>(configuration: testConfiguration()) { server.get("/status/401") }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .unauthorized)
            #expect(error.statusCode == 401)
        }
    }

    @Test func errorInsideA200BodyFailsWithBodyErrorValidator() async throws {
        try await withTestServer { server in
            let configuration = testConfiguration { $0.validators = [StatusCodeValidator(), BodyErrorValidator()] }
            let request = TestRequest<JSON>(configuration: configuration) { server.get("/body-error") }

            let error = try await #require(throws: BaseServerError.self) { try await request.performAsync() }

            #expect(error.code == .server)
            #expect(error.serverCode == "5")
            #expect(error.message == "User authorization failed: invalid access_token")
        }
    }

    @Test func firstErrorMapperThatRecognisesTheBodyWins() async throws {
        struct AppError: Error, Decodable, Sendable, Equatable {
            let code: String
            let message: String
        }
        struct OtherError: Error, Decodable, Sendable { let reason: String }
        try await withTestServer { server in
            let configuration = testConfiguration {
                $0.errorMappers = [
                    DecodableErrorMapper(OtherError.self), DecodableErrorMapper(AppError.self),
                    ClosureErrorMapper { _, _ in BaseServerError.invalidRequest("never reached") },
                ]
            }
            let request = TestRequest<EmptyResponse>(configuration: configuration) {
                ServerRequest(
                    method: .post, baseUrl: server.baseURL, relativeUrl: "/orders", parameters: .jsonObject(["item": 1])
                )
            }

            let error = try await #require(throws: AppError.self) { try await request.performAsync() }

            #expect(error == AppError(code: "ORDER_LIMIT", message: "You can have at most 3 open orders"))
        }
    }

    @available(*, deprecated, message: "tests the deprecated callback form")
    @Test func customHandleOverrideMapsTheResponse() async throws {
        final class StatusRequest: CallbackServerRequest<Int>, @unchecked Sendable {
            let url: URL
            init(url: URL, configuration: NetworkConfiguration) {
                self.url = url
                super.init(configuration: configuration)
            }
            override func createAsyncServerRequest() -> ServerRequest {
                ServerRequest(method: .get, baseUrl: url, relativeUrl: "/text")
            }
            override func handle(
                serverResponse: ServerResponse, completion: @escaping @Sendable (ResponseResult<Int>) -> Void
            ) {
                completion(.success(serverResponse.data.count, fromCache: false))
                completion(.failure(BaseServerError.invalidRequest("a second call is ignored")))
            }
        }
        try await withTestServer { server in
            let value = try await StatusRequest(url: server.baseURL, configuration: testConfiguration()).performAsync()

            #expect(value == 5)
        }
    }

    @Test func aModelOfAnotherDynamicTypeReachesBothEntryPointsIntact() async throws {
        // The model goes from the pipeline to the caller with its type erased and is taken back
        // without a dynamic cast, as the request's `Model`: a subclass instance and a value
        // behind an existential `Model` (boxed, it is larger than the inline buffer) must arrive
        // whole and keep their dynamic type.
        try await withTestServer { server in
            let configuration = testConfiguration()

            let shape = MappedRequest<Shape>(url: server.baseURL, configuration: configuration) {
                Circle(name: "circle", radius: $0.data.count)
            }
            let named = MappedRequest<any Named>(url: server.baseURL, configuration: configuration) {
                Label(name: "label", words: ["a", "b", "c"], bytes: $0.data.count)
            }

            let awaited = try await shape.performAsync()
            let delivered = try await EventLog(shape.perform()).success()
            let namedAwaited = try await named.performAsync()
            let namedDelivered = try await EventLog(named.perform()).success()

            #expect((awaited as? Circle)?.radius == 5)
            #expect((delivered as? Circle)?.radius == 5)
            #expect(awaited.name == "circle")
            #expect(namedAwaited as? Label == Label(name: "label", words: ["a", "b", "c"], bytes: 5))
            #expect(namedDelivered as? Label == Label(name: "label", words: ["a", "b", "c"], bytes: 5))
        }
    }

    @available(*, deprecated, message: "tests the deprecated callback form")
    @Test func handleThatCompletesLaterFromAnotherQueueDeliversItsFirstResult() async throws {
        final class LaterRequest: CallbackServerRequest<Int>, @unchecked Sendable {
            let url: URL
            init(url: URL, configuration: NetworkConfiguration) {
                self.url = url
                super.init(configuration: configuration)
            }
            override func createAsyncServerRequest() -> ServerRequest {
                ServerRequest(method: .get, baseUrl: url, relativeUrl: "/text")
            }
            override func handle(
                serverResponse: ServerResponse, completion: @escaping @Sendable (ResponseResult<Int>) -> Void
            ) {
                let count = serverResponse.data.count
                DispatchQueue.global().async {
                    completion(.success(count * 10, fromCache: false))
                    completion(.success(-1, fromCache: false))
                }
            }
        }
        try await withTestServer { server in
            let configuration = testConfiguration()

            let viaAwait = try await LaterRequest(url: server.baseURL, configuration: configuration).performAsync()
            let viaContext = try await EventLog(
                LaterRequest(url: server.baseURL, configuration: configuration).perform()
            ).success()

            #expect(viaAwait == 50)
            #expect(viaContext == 50)
        }
    }

    @Test func responseHeadersAreCaseInsensitiveAndTheBodyReadsAsJSON() throws {
        let response = ServerResponse(
            statusCode: 200, headers: ["Content-Type": "application/json"],
            data: Data(#"{"a": [1, 2]}"#.utf8), request: URLRequest(url: URL(string: "http://x")!))

        #expect(response.headers["content-type"] == "application/json")
        #expect(try response.json()["a"]?[1]?.intValue == 2)
        #expect(try response.json() == response.json())
    }

    @Test func aBodyThatIsNotJSONThrowsCantMappingAtTheRootOnEveryRead() throws {
        let response = ServerResponse(
            statusCode: 200, headers: [:], data: Data("<html>".utf8),
            request: URLRequest(url: URL(string: "http://x")!))

        for _ in 0..<2 {
            let error = try #require(throws: BaseServerError.self) { try response.json() }
            #expect(error.code == .cantMapping)
            #expect(error.keyPath == "<root>")
            #expect(error.message == "the body is not valid JSON")
        }
    }
}

/// A GET of the test server's `/text` whose mapping is `map`.
final class MappedRequest<Model: Sendable>: BaseServerRequest<Model>, @unchecked Sendable {
    private let url: URL
    private let map: @Sendable (ServerResponse) -> Model

    init(url: URL, configuration: NetworkConfiguration, map: @escaping @Sendable (ServerResponse) -> Model) {
        self.url = url
        self.map = map
        super.init(configuration: configuration)
    }

    override func createAsyncServerRequest() -> ServerRequest {
        ServerRequest(method: .get, baseUrl: url, relativeUrl: "/text")
    }

    override func handle(serverResponse: ServerResponse) throws -> Model { map(serverResponse) }
}

/// A class model whose instances may be of a subclass.
class Shape: @unchecked Sendable {  // safe: only `let` properties
    let name: String
    init(name: String) { self.name = name }
}

final class Circle: Shape, @unchecked Sendable {  // safe: only `let` properties
    let radius: Int
    init(name: String, radius: Int) {
        self.radius = radius
        super.init(name: name)
    }
}

/// A model type that is an existential.
protocol Named: Sendable {
    var name: String { get }
}

/// Larger than an existential's inline buffer, so it is boxed.
struct Label: Named, Equatable {
    let name: String
    let words: [String]
    let bytes: Int
}
