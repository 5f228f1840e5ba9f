//
// This source file is part of the CoreNetKit open source project
//
// Copyright (c) 2026 the CoreNetKit project authors
// Licensed under Apache License v2.0
//
// SPDX-License-Identifier: Apache-2.0

/// The version of CoreNetKit, as sent in the default `User-Agent` header.
public enum CoreNetKitVersion {
    /// The semantic version of this build of the library, for example `"0.1.0"`.
    public static let current = "0.1.0"
}
