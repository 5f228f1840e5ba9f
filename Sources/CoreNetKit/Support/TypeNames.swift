//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// `String(describing:)` type names, cached per type: printing one walks metadata, and monitors name the same types
/// on every request. The table stays small since a program has a bounded number of types.
enum TypeNames {
    private static let names = Locked<[ObjectIdentifier: String]>([:])

    static func name(of type: Any.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = names.withLock({ $0[id] }) { return name }
        let name = String(describing: type)
        names.withLock { $0[id] = name }
        return name
    }
}
