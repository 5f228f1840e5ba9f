//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import CoreNetKitTestServer
import Foundation
import Testing

@testable import CoreNetKit

/// Builds seeded, mutated raw responses around a valid ``FaultModel`` body.
struct ResponseMutator {
    var generator: SeededGenerator
    /// Whether framing may break too (header block cut off, chunked with trailers): not on
    /// FoundationNetworking, which aborts the process on those (swift-corelibs-foundation #5285).
    let breaksFraming: Bool

    static let statuses = [
        200, 200, 200, 201, 202, 203, 204, 299, 301, 304, 400, 401, 403, 404, 418, 422, 500, 503, 599,
    ]
    static let contentTypes: [String?] = [
        "application/json", "application/json; charset=utf-8", "text/plain", "text/html", "a/b;;;=",
        "application/json; charset=latin1", nil,
    ]

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
    mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

    mutating func body() -> [UInt8] {
        let tags = (0..<int(0..<5)).map { "\"t\($0)\"" }.joined(separator: ",")
        var body = Array(#"{"id":\#(int(0..<1000)),"name":"n\#(int(0..<100))","tags":[\#(tags)]}"#.utf8)
        for _ in 0..<int(0..<4) {
            switch int(0..<11) {
            case 0 where !body.isEmpty: body[int(0..<body.count)] = UInt8(int(0..<256))
            case 1 where !body.isEmpty: body.removeSubrange(int(0..<body.count)...)
            case 2:
                body.insert(
                    contentsOf: (0..<int(1..<8)).map { _ in UInt8(int(0..<256)) }, at: int(0..<(body.count + 1)))
            case 3: body = Array(#"{"id":"1","name":2,"tags":null}"#.utf8)
            case 4: body = Array(repeating: UInt8(ascii: "["), count: int(100..<5000)) + body
            case 5: body.insert(contentsOf: [0xC3, 0x28, 0xFF], at: int(0..<(body.count + 1)))
            case 6: body = []
            case 7: body = Array(#"{"id":1e999999,"name":"x","tags":[]}"#.utf8)
            case 8:
                body =
                    Array(#"{"id":1,"name":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: int(1..<200_000))
                    + Array(#"","tags":[]}"#.utf8)
            case 9: body = Array("null".utf8)
            default: body = Array(#"{"items":[{"id":1}]}"#.utf8)
            }
        }
        return body
    }

    mutating func response() -> [UInt8] {
        let status = Self.statuses[int(0..<Self.statuses.count)]
        var body = (status == 204 || status == 304) ? [] : body()
        var headers: [String] = []
        if let type = Self.contentTypes[int(0..<Self.contentTypes.count)] { headers.append("Content-Type: \(type)") }
        for _ in 0..<int(0..<4) {
            switch int(0..<6) {
            case 0: headers.append("X-Fuzz-\(int(0..<100)): " + String(repeating: "v", count: int(0..<8000)))
            case 1: headers.append("Content-Encoding: gzip")
            case 2: headers.append("Cache-Control: no-store, max-age=\(int(-5..<5))")
            case 3: headers.append("Set-Cookie: s=\(int(0..<1000)); Path=/")
            case 4: headers.append("WWW-Authenticate: Basic realm=\"f\(int(0..<9))\"")
            default: headers.append("X-Empty:")
            }
        }
        var framing = "Content-Length: \(body.count)"
        switch int(0..<10) {
        case 0: framing = "Content-Length: \(body.count + int(1..<100))"
        case 1 where !body.isEmpty: framing = "Content-Length: \(int(0..<body.count))"
        case 2: framing = ""  // delimited by the close
        case 3 where breaksFraming:
            framing = "Transfer-Encoding: chunked"
            body = Array(String(body.count, radix: 16).utf8) + [13, 10] + body + Array("\r\n0\r\nX-T: 1\r\n\r\n".utf8)
        default: break
        }
        if !framing.isEmpty { headers.append(framing) }
        headers.append("Connection: close")
        var head = "HTTP/1.1 \(status) Fuzz\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        if breaksFraming && chance(3) {
            head = String(head.prefix(int(1..<head.count)))
            body = []
        }
        return Array(head.utf8) + body
    }
}

@Suite(.timeLimit(.minutes(3))) struct FaultFuzzTests {
    static let cases = 1_000

    @Test(.timeLimit(.minutes(5)))
    func mutatedBodiesAndHeadersEndInSuccessOrATypedError() async throws {
        try await withFaultServer { faults in
            var mutator = ResponseMutator(
                generator: SeededGenerator(seed: 0xF022_0012), breaksFraming: !runsOnFoundationNetworking)
            let paths = (0..<Self.cases).map { _ in faults.register(mutator.response()) }
            let configuration = testConfiguration()
            let untyped = Locked<[String]>([])
            let outcomes = Locked<[String: Int]>([:])
            let started = ContinuousClock.now

            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, path) in paths.enumerated() {
                    if index >= 16 { try await group.next() }
                    group.addTask {
                        let request = faults.request(path: path, configuration: configuration, timeout: 10)
                        do {
                            let result = try await outcome(of: request)
                            let name =
                                switch result {
                                case .success: "success"
                                case .failure(let error): "\(error.code)"
                                }
                            outcomes.withLock { $0[name, default: 0] += 1 }
                        } catch {
                            untyped.withLock { $0.append("\(path): \(error)") }
                        }
                    }
                }
                try await group.waitForAll()
            }
            print(
                "fuzz: \(Self.cases) cases on \(type(of: sharedTestTransport)) in \(ContinuousClock.now - started): \(outcomes.withLock { $0 })"
            )

            #expect(untyped.withLock { $0 }.isEmpty, "\(untyped.withLock { $0 }.prefix(5))")
            #expect(outcomes.withLock { $0.values.reduce(0, +) } == Self.cases)
            #expect(configuration.taskPool.isEmpty)
        }
    }
}
