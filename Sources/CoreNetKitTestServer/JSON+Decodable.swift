//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// Reading request bodies with Foundation's `JSONDecoder`; ``JSON`` itself stays the server's
/// writer, because routes answer with members in a fixed order and pre-encoded bodies.
///
/// Object members come out sorted by key (a decoder keeps no order): the routes that echo a
/// body (`POST /users`) are read back as models, never compared byte for byte.
extension JSON: Decodable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            let keys = object.allKeys.sorted { $0.stringValue < $1.stringValue }
            self = .object(try keys.map { key in (key.stringValue, try object.decode(JSON.self, forKey: key)) })
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [JSON] = []
            while !array.isAtEnd { elements.append(try array.decode(JSON.self)) }
            self = .array(elements)
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                self = .null
            } else if let bool = try? value.decode(Bool.self) {
                self = .bool(bool)
            } else if let int = try? value.decode(Int.self) {
                self = .int(int)
            } else if let double = try? value.decode(Double.self) {
                self = .number(String(double))
            } else {
                self = .string(try value.decode(String.self))
            }
        }
    }
}
