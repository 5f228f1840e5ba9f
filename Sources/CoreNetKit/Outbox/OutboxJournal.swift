//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The on-disk format of ``FileOutboxStore``'s journal, as pure functions: a header, then
/// records appended one after another, each framed so a torn or damaged tail is found.
///
/// ```
/// header   "CNKOUTBX" 0x00 0x01 0x00 0x00                      12 bytes
/// record   length: UInt32 big-endian   (of the payload)
///          crc32:  UInt32 big-endian   (IEEE, of the payload)
///          payload: the record as JSON
/// ```
///
/// Reading stops at the first record that is not whole or whose checksum does not match: what
/// came before it is kept, and the rest is reported as a ``OutboxJournalDamage``.
enum OutboxJournal {
    static let header: [UInt8] = Array("CNKOUTBX".utf8) + [0, 1, 0, 0]
    /// The largest payload a record may claim; a longer length is damage, not a record.
    static let maximumPayload = 64 * 1024 * 1024

    /// One change to the journal's state.
    enum Record: Codable, Sendable, Equatable {
        /// An entry was queued.
        case added(OutboxEntry)
        /// An entry was answered: its settlement.
        case succeeded(OutboxEntry.ID, OutboxResponse)
        case failed(OutboxEntry.ID, OutboxFailure)
        /// An entry's outcome was delivered: a succeeded entry leaves, a failed one stays.
        case delivered(OutboxEntry.ID)
        /// An entry was cancelled or removed.
        case removed(OutboxEntry.ID)
        /// A pending entry's attempts so far (``OutboxEntry/attempts``): written before each of
        /// its requests goes out. A journal written before attempts were counted has none.
        case attempted(OutboxEntry.ID, Int)
    }

    /// What reading a journal found.
    struct Contents: Sendable {
        var records: [Record]
        /// Where the last whole record ends: appends go here.
        var validLength: Int
        var damage: OutboxJournalDamage?
    }

    /// The framed bytes of `record`.
    static func frame(_ record: Record) throws -> [UInt8] {
        let payload = Array(try encoder.encode(record))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 8)
        append(UInt32(payload.count), to: &bytes)
        append(CRC32.checksum(payload), to: &bytes)
        bytes += payload
        return bytes
    }

    /// Reads `bytes` (a whole journal file); never traps, whatever the bytes.
    ///
    /// - Throws: ``BaseServerError`` `fileAccess` when the file does not start with the header
    ///   (it is not an outbox journal, and nothing is read from it).
    static func read(_ bytes: [UInt8], path: String) throws -> Contents {
        if bytes.isEmpty { return Contents(records: [], validLength: 0, damage: nil) }
        guard bytes.count >= header.count, Array(bytes[..<header.count]) == header else {
            if bytes.count < header.count, Array(header[..<bytes.count]) == bytes {
                // A header torn while the file was created: nothing was ever stored.
                return Contents(
                    records: [], validLength: 0,
                    damage: OutboxJournalDamage(offset: 0, droppedBytes: bytes.count, reason: "a torn header"))
            }
            throw BaseServerError(code: .fileAccess, message: "\(path) is not an outbox journal")
        }
        var records: [Record] = []
        var offset = header.count
        while offset < bytes.count {
            let remaining = bytes.count - offset
            func damage(_ reason: String) -> Contents {
                Contents(
                    records: records, validLength: offset,
                    damage: OutboxJournalDamage(offset: offset, droppedBytes: remaining, reason: reason))
            }
            guard remaining >= 8 else { return damage("a torn record frame") }
            let length = Int(uint32(bytes, at: offset))
            let checksum = uint32(bytes, at: offset + 4)
            guard length <= maximumPayload else { return damage("a record length of \(length) bytes") }
            guard remaining - 8 >= length else { return damage("a torn record (\(remaining - 8) of \(length) bytes)") }
            let payload = bytes[(offset + 8)..<(offset + 8 + length)]
            guard CRC32.checksum(payload) == checksum else { return damage("a record whose checksum does not match") }
            guard let record = try? decoder.decode(Record.self, from: Data(payload)) else {
                return damage("a record that cannot be read")
            }
            records.append(record)
            offset += 8 + length
        }
        return Contents(records: records, validLength: offset, damage: nil)
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.dataEncodingStrategy = .base64
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()
}

/// A journal's tail that could not be read when the store opened: a record torn by a crash
/// while it was written, or damaged bytes. Every whole record before it was kept; the tail was
/// cut off so new records follow the last good one.
public struct OutboxJournalDamage: Sendable, Hashable, CustomStringConvertible {
    /// Where the unreadable tail began, in bytes from the start of the file.
    public let offset: Int
    /// How many bytes were dropped.
    public let droppedBytes: Int
    /// What was wrong with them.
    public let reason: String

    public var description: String {
        "the outbox journal's last \(droppedBytes) bytes (from offset \(offset)) were dropped: \(reason)"
    }
}

/// CRC-32 (IEEE 802.3, the polynomial of zlib and PNG).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
