//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One ``DiskCacheAdapter`` file: a magic line, a JSON header's length, the header, then the raw body. Decoding checks
/// every part and answers `nil` otherwise, so a truncated or foreign file is a miss, never a crash.
enum CacheFileFormat {
    static let fileExtension = "cnkcache"
    private static let magic = Array("CNKCACHE1\n".utf8)
    /// Headers larger than this are not ours.
    private static let maximumHeaderLength = 1 << 20

    private struct Header: Codable {
        var status: Int
        var headers: [[String]]
        var url: String?
        var storedAt: Double
        var variant: String?
        var bodyLength: Int
    }

    static func encode(_ entry: CachedResponse) -> Data? {
        let header = Header(
            status: entry.statusCode, headers: entry.headers.fields.map { [$0.name, $0.value] },
            url: entry.url?.absoluteString, storedAt: entry.storedAt.timeIntervalSince1970,
            variant: entry.variant, bodyLength: entry.body.count)
        guard let json = try? JSONEncoder().encode(header) else { return nil }
        var data = Data(magic)
        data.reserveCapacity(magic.count + 4 + json.count + entry.body.count)
        let length = UInt32(json.count)
        data.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) })
        data.append(json)
        data.append(entry.body)
        return data
    }

    static func decode(_ data: Data) -> CachedResponse? {
        let bytes = [UInt8](data.prefix(magic.count + 4))
        guard bytes.count == magic.count + 4, Array(bytes.prefix(magic.count)) == magic else { return nil }
        let headerLength = bytes.suffix(4).reduce(0) { $0 << 8 | Int($1) }
        let headerStart = data.startIndex + magic.count + 4
        guard headerLength <= maximumHeaderLength, data.endIndex - headerStart >= headerLength,
            let header = try? JSONDecoder().decode(Header.self, from: data[headerStart..<headerStart + headerLength])
        else { return nil }
        let bodyStart = headerStart + headerLength
        guard header.bodyLength == data.endIndex - bodyStart, (200..<300).contains(header.status),
            header.headers.allSatisfy({ $0.count == 2 })
        else { return nil }
        return CachedResponse(
            statusCode: header.status,
            headers: HTTPHeaders(header.headers.map { (name: $0[0], value: $0[1]) }),
            body: Data(data[bodyStart...]),
            url: header.url.flatMap(URL.init(string:)),
            storedAt: Date(timeIntervalSince1970: header.storedAt),
            variant: header.variant)
    }
}
