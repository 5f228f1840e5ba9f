// swift-tools-version: 6.1
//
// CoreNetKit: one product, the `CoreNetKit` library, which depends on nothing beyond the
// Swift toolchain. The loopback server (Hummingbird), the demo and the benchmark harness are
// internal, executable or test targets, so a package that depends on CoreNetKit never
// fetches them. AsyncHTTPClient is fetched only when the `AsyncHTTPClient` trait is enabled.

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "CoreNetKit",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "CoreNetKit", targets: ["CoreNetKit"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "Adds AsyncHTTPClientTransport, built on swift-server/async-http-client."
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // The loopback test server's (and the tests') hashes and locks come from well-kept
        // packages, not hand-written copies. Never a dependency of the CoreNetKit library.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/ordo-one/package-benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "CoreNetKit",
            dependencies: [
                .product(
                    name: "AsyncHTTPClient",
                    package: "async-http-client",
                    condition: .when(traits: ["AsyncHTTPClient"])
                ),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CoreNetKitTestServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "corenetkit-demo",
            dependencies: ["CoreNetKit", "CoreNetKitTestServer"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "CoreNetKitBenchmarks",
            dependencies: [
                "CoreNetKit",
                "CoreNetKitTestServer",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/CoreNetKitBenchmarks",
            swiftSettings: strictSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "corenetkit-profile",
            dependencies: ["CoreNetKit"],
            path: "Benchmarks/CoreNetKitProfile",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreNetKitTests",
            dependencies: [
                "CoreNetKit", "CoreNetKitTestServer",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
