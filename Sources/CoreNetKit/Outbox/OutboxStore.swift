//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Where an ``Outbox`` keeps its entries: the seam between the outbox and its storage.
///
/// ``FileOutboxStore`` (an append-only journal, for an app or one process) is the default;
/// `PostgresOutboxStore` (the `Postgres` trait) lets several processes drain one outbox. A store
/// of your own must keep these promises:
///
/// - ``add(_:)`` returns only once the entry would survive the process being killed.
/// - ``sendNext(_:)`` hands out only the oldest pending entry of a queue, and only while no
///   other entry of that queue is being sent (by this process or any other), so each queue is
///   sent in order and one entry at a time.
/// - An entry handed out is handed out again only after its sender died or left it pending.
/// - ``recordAttempts(_:of:)`` keeps the count where a process that dies does not lose it, so the
///   retry policy's bound holds across restarts (the default keeps none).
/// - ``undelivered()`` hands out each outcome to one caller: a store that several processes
///   share must not give a starting process an outcome that a live one is about to deliver.
public protocol OutboxStore: Sendable {
    /// Stores `entry` (pending) durably, then returns.
    ///
    /// - Throws: ``BaseServerError`` `outboxFull` when the store holds as many entries or bytes
    ///   as it may; `fileAccess` (or the store's own error) when it cannot be written.
    func add(_ entry: OutboxEntry) async throws

    /// Claims the next entry that may be sent, runs `send` with it, records what `send` returns
    /// (`nil` leaves the entry pending) and releases the claim.
    ///
    /// - Returns: the entry as it is afterwards, or `nil` when no entry could be claimed.
    func sendNext(_ send: @Sendable (OutboxEntry) async -> OutboxSettlement?) async throws -> OutboxEntry?

    /// The entries in `state`, oldest first.
    func entries(in state: OutboxEntry.State) async throws -> [OutboxEntry]

    /// How many entries are in `state`.
    func count(in state: OutboxEntry.State) async throws -> Int

    /// Removes a pending or failed entry that is not being sent now.
    ///
    /// - Returns: whether it was removed.
    func remove(_ id: OutboxEntry.ID) async throws -> Bool

    /// Records that `attempts` attempts to send the pending entry `id` have begun, in every
    /// process (``OutboxEntry/attempts``); the entry ``sendNext(_:)`` hands out next carries the
    /// count. The outbox calls it while `id` is being sent, before each request goes out, so it
    /// must be kept where the death of the process does not lose it.
    ///
    /// The default keeps nothing: the entries then always carry `0`, and the retry policy's
    /// bound applies to each send alone, starting over after a restart.
    ///
    /// - Parameters:
    ///   - attempts: the count, this attempt included.
    ///   - id: an entry being sent now (by the caller's ``sendNext(_:)``).
    /// - Throws: ``BaseServerError`` `cancelled` when `id` is no longer pending (settled or
    ///   removed meanwhile): the attempt is not made and the entry is left as it is. Any other
    ///   error when the count cannot be kept: the attempt is not made either, and the entry's
    ///   queue waits ``Outbox/Options/pollInterval`` before it is tried again.
    func recordAttempts(_ attempts: Int, of id: OutboxEntry.ID) async throws

    /// Settled entries whose outcome has not been delivered yet (the process that sent them
    /// stopped first), oldest first, each claimed for the caller: handed out again only once the
    /// claim has lapsed (the caller died first) — never to two live processes.
    func undelivered() async throws -> [OutboxEntry]

    /// Records that the outcome of `id` was delivered: a succeeded entry leaves the store, a
    /// failed one stays in the failed list.
    func markDelivered(_ id: OutboxEntry.ID) async throws

    /// Whether other processes may add or send entries too, so an idle outbox looks again now
    /// and then (``Outbox/Options/pollInterval``) instead of only when it queued something itself.
    var isShared: Bool { get }
}

extension OutboxStore {
    /// Keeps no count: a store of your own that does not implement it bounds each send alone.
    public func recordAttempts(_ attempts: Int, of id: OutboxEntry.ID) async throws {}
}

/// What became of an entry that was sent.
public enum OutboxSettlement: Sendable, Hashable {
    /// The server answered with success.
    case succeeded(OutboxResponse)
    /// The server answered with a status that will not pass, or sending was given up.
    case failed(OutboxFailure)
}
