//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// The standard stages are built from the settings: each reads its own
/// (``NetworkConfiguration/retryPolicy``, ``NetworkConfiguration/cacheAdapter``,
/// ``NetworkConfiguration/accessManager``, ``NetworkConfiguration/preparators``,
/// ``NetworkConfiguration/validators``), and every list of stages a configuration keeps has
/// each of them exactly once, so a setting can never be left without its stage.
extension NetworkConfiguration {
    /// The types of the standard stages, from the outside in.
    static let standardStageTypes: [any Interceptor.Type] = [
        ResponseValidationInterceptor.self, RetryInterceptor.self, PreparatorInterceptor.self,
        CacheInterceptor.self, AccessTokenInterceptor.self,
    ]

    /// `stages` with each standard stage exactly once: the first of a repeated one is kept, and
    /// one that is missing goes back next to the standard stage it follows (or, failing that,
    /// precedes) in the standard order; with none of them in `stages`, they all go first, so
    /// the stages of `stages` run right before the transport, as an appended stage does.
    static func withStandardStages(_ stages: [any Interceptor]) -> [any Interceptor] {
        var seen = Set<ObjectIdentifier>()
        var result = stages.filter { stage in
            let id = ObjectIdentifier(type(of: stage))
            guard isStandard(id) else { return true }
            return seen.insert(id).inserted
        }
        guard seen.count < standardStageTypes.count else { return result }
        let standard = standardInterceptors
        guard !seen.isEmpty else { return standard + result }
        for (order, type) in standardStageTypes.enumerated() where !seen.contains(ObjectIdentifier(type)) {
            let before = standardStageTypes[..<order].last { seen.contains(ObjectIdentifier($0)) }
            if let before, let index = result.firstIndex(ofStage: before) {
                result.insert(standard[order], at: index + 1)
            } else {
                let after = standardStageTypes[(order + 1)...].first { seen.contains(ObjectIdentifier($0)) }
                let index = after.flatMap { result.firstIndex(ofStage: $0) } ?? 0
                result.insert(standard[order], at: index)
            }
            seen.insert(ObjectIdentifier(type))
        }
        return result
    }

    private static func isStandard(_ id: ObjectIdentifier) -> Bool {
        standardStageTypes.contains { ObjectIdentifier($0) == id }
    }
}

/// Which standard stage a stage of the list is, so the chain can run it without its frames:
/// pass over it when it has nothing to do for the request (it would only call `proceed`), or do
/// its work in line (validation, the preparators). Decided per stage list when the list is set,
/// not per request; a stage of yours is `nil` and always runs as itself.
enum StandardStage: Sendable {
    case validation
    case retry
    case preparators
    case cache
    case accessToken

    /// The standard stage `stage` is; `nil` for a stage that is not a standard one.
    init?(_ stage: any Interceptor) {
        switch stage {
        case is ResponseValidationInterceptor: self = .validation
        case is RetryInterceptor: self = .retry
        case is PreparatorInterceptor: self = .preparators
        case is CacheInterceptor: self = .cache
        case is AccessTokenInterceptor: self = .accessToken
        default: return nil
        }
    }

    /// Whether the stage would hand `request` on unchanged under `configuration`: each case
    /// states its stage's own first guard. The chain asks it of retry, the cache and the access
    /// token; validation (always work to do) and the preparators run in line instead.
    func passes(_ request: ServerRequest, under configuration: NetworkConfiguration) -> Bool {
        switch self {
        case .validation: return false
        case .retry: return !request.hasRetryPolicy && configuration.retryPolicy == nil
        case .preparators: return configuration.preparators.isEmpty
        case .cache: return configuration.cacheAdapter == nil && request.cachePolicy != .cacheOnly
        case .accessToken: return configuration.accessManager == nil || !request.requiresAuthorization
        }
    }
}

extension Array where Element == any Interceptor {
    /// Inserts `stage` right before the first stage of type `anchor`: the way to place a stage
    /// relative to a standard one.
    ///
    /// ```swift
    /// configuration.interceptors.insert(CacheKeyInterceptor(), before: CacheInterceptor.self)
    /// ```
    ///
    /// The standard stages the list lacks are added first (a configuration always has them).
    /// When no stage is of type `anchor` (a stage of yours the list does not hold), `stage` is
    /// appended: it runs right before the transport.
    ///
    /// - Returns: whether a stage of type `anchor` was found.
    @discardableResult
    public mutating func insert(_ stage: any Interceptor, before anchor: any Interceptor.Type) -> Bool {
        insert(stage, next: anchor, offset: 0)
    }

    /// Inserts `stage` right after the first stage of type `anchor` (further in, closer to the
    /// transport): ``insert(_:before:)``, on the other side.
    ///
    /// - Returns: whether a stage of type `anchor` was found.
    @discardableResult
    public mutating func insert(_ stage: any Interceptor, after anchor: any Interceptor.Type) -> Bool {
        insert(stage, next: anchor, offset: 1)
    }

    /// Completes the list with the standard stages, then inserts `stage` at `offset` from the
    /// first stage of type `anchor`, or appends it when there is none.
    private mutating func insert(_ stage: any Interceptor, next anchor: any Interceptor.Type, offset: Int) -> Bool {
        self = NetworkConfiguration.withStandardStages(self)
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
