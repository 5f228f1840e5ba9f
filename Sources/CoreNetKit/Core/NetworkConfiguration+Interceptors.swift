//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// A stage the library ships, made from one ``NetworkConfiguration`` setting that reads and replaces it in the list;
/// the chain runs it as any other stage.
protocol BuiltInStage: Interceptor {
    /// Whether the stage has nothing to do (its setting is empty), so the list leaves it out.
    var isOff: Bool { get }
}

extension NetworkConfiguration {
    /// The built-in stages in their standard order, from the outside in: validation judges what every later stage
    /// agreed on, retry sends the rest again, the preparators run once, the cache sees the prepared request and answers
    /// before any token is needed.
    static let builtInOrder: [any Interceptor.Type] = [
        ResponseValidationInterceptor.self, RetryInterceptor.self, PreparatorInterceptor.self,
        CacheInterceptor.self, AccessTokenInterceptor.self,
    ]

    /// Where a built-in stage of `type` goes in `stages` that lack one: right after the nearest built-in stage that
    /// comes before it in the standard order, else right before the nearest that comes after it, else first.
    static func standardPlace(of type: any Interceptor.Type, in stages: [any Interceptor]) -> Int {
        guard let order = builtInOrder.firstIndex(where: { $0 == type }) else { return stages.count }
        for earlier in builtInOrder[..<order].reversed() {
            if let index = stages.firstIndex(ofStage: earlier) { return index + 1 }
        }
        for later in builtInOrder[(order + 1)...] {
            if let index = stages.firstIndex(ofStage: later) { return index }
        }
        return 0
    }
}

extension Array where Element == any Interceptor {
    /// Inserts `stage` right before the first stage of type `anchor`, to place it relative to a built-in one; with no
    /// such stage (a feature that is off) it appends `stage`, which then runs right before the transport.
    ///
    /// ```swift
    /// configuration.interceptors.insert(CacheKeyInterceptor(), before: CacheInterceptor.self)
    /// ```
    ///
    /// - Returns: whether a stage of type `anchor` was found.
    @discardableResult
    public mutating func insert(_ stage: any Interceptor, before anchor: any Interceptor.Type) -> Bool {
        insert(stage, next: anchor, offset: 0)
    }

    /// Inserts `stage` right after the first stage of type `anchor` (further in, closer to the transport), or appends
    /// it as ``insert(_:before:)`` does; returns whether a stage of type `anchor` was found.
    @discardableResult
    public mutating func insert(_ stage: any Interceptor, after anchor: any Interceptor.Type) -> Bool {
        insert(stage, next: anchor, offset: 1)
    }

    private mutating func insert(_ stage: any Interceptor, next anchor: any Interceptor.Type, offset: Int) -> Bool {
        guard let index = firstIndex(ofStage: anchor) else {
            append(stage)
            return false
        }
        insert(stage, at: index + offset)
        return true
    }

    /// The index of the first stage of type `type`, if any.
    public func firstIndex(ofStage type: any Interceptor.Type) -> Int? {
        let id = ObjectIdentifier(type)
        return firstIndex { ObjectIdentifier(Swift.type(of: $0)) == id }
    }
}
