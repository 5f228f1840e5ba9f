// swift-tools-version: 6.1
//
// CoreNetKit: one product, the `CoreNetKit` library, which depends on nothing beyond the
// Swift toolchain. The loopback server (Hummingbird), the demo and the benchmark harness are
// internal, executable or test targets, so a package that depends on CoreNetKit never
// fetches them. Each server-ecosystem package is fetched only when its trait is enabled:
// `AsyncHTTPClient` (async-http-client), `Logging` (swift-log), `Metrics` (swift-metrics),
// `Tracing` (swift-distributed-tracing), `OpenAPI` (swift-openapi-runtime) and `Postgres`
// (postgres-nio).

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "CoreNetKit",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "CoreNetKit", targets: ["CoreNetKit"])
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "Adds AsyncHTTPClientTransport, built on swift-server/async-http-client."
        ),
        .trait(
            name: "Logging",
            description: "Adds LoggingEventMonitor, which logs every request through apple/swift-log."
        ),
        .trait(
            name: "Metrics",
            description:
                "Adds MetricsEventMonitor, which records request counters and timers through apple/swift-metrics."
        ),
        .trait(
            name: "Tracing",
            description:
                "Adds TracingInterceptor: a client span per request and W3C trace context propagation through apple/swift-distributed-tracing."
        ),
        .trait(
            name: "OpenAPI",
            description:
                "Adds CoreNetKitClientTransport, an apple/swift-openapi-runtime ClientTransport that sends through CoreNetKit."
        ),
        .trait(
            name: "Postgres",
            description:
                "Adds PostgresTokenStore: tokens shared by a fleet of processes in PostgreSQL, one refresh for all, through vapor/postgres-nio."
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // The loopback test server's (and the tests') hashes and locks come from well-kept
        // packages, not hand-written copies. Never a dependency of the CoreNetKit library.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // AsyncHTTPClient's own decompression (its limit's error is mapped to responseTooLarge).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // TLS: the AsyncHTTPClient trait's trust settings (NIOSSL, already a dependency of
        // async-http-client) and the test server's HTTPS, with certificates made at test time.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(
            url: "https://github.com/ordo-one/package-benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
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
                .product(
                    name: "NIOHTTPCompression", package: "swift-nio-extras",
                    condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging", "Postgres"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                // AsyncHTTPClient's own dependency: its transport reads the client's tracer.
                .product(
                    name: "Tracing", package: "swift-distributed-tracing",
                    condition: .when(traits: ["Tracing", "AsyncHTTPClient"])),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CoreNetKitTestServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "corenetkit-demo",
            dependencies: ["CoreNetKit", "CoreNetKitTestServer"],
            swiftSettings: strictSettings
        ),
        // A member of a fleet sharing a token store: the child process of the cross-process refresh
        // tests and of the fleet benchmark. Internal, never a product.
        .executableTarget(
            name: "corenetkit-fleet-child",
            dependencies: [
                "CoreNetKit",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "corenetkit-fleet-bench",
            dependencies: [
                "CoreNetKit",
                "CoreNetKitTestServer",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            ],
            path: "Benchmarks/CoreNetKitFleet",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "CoreNetKitBenchmarks",
            dependencies: [
                "CoreNetKit",
                "CoreNetKitTestServer",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/CoreNetKitBenchmarks",
            swiftSettings: strictSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "corenetkit-faults",
            dependencies: ["CoreNetKit", "CoreNetKitTestServer"],
            path: "Benchmarks/CoreNetKitFaults",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "corenetkit-stream",
            dependencies: [
                "CoreNetKit",
                "CoreNetKitTestServer",
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client",
                    condition: .when(traits: ["AsyncHTTPClient"])),
            ],
            path: "Benchmarks/CoreNetKitStream",
            swiftSettings: strictSettings
        ),
        // The outbox's enqueue latency (fsync) and drain throughput against plain performAsync().
        .executableTarget(
            name: "corenetkit-outbox-bench",
            dependencies: [
                "CoreNetKit",
                "CoreNetKitTestServer",
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client",
                    condition: .when(traits: ["AsyncHTTPClient"])),
            ],
            path: "Benchmarks/CoreNetKitOutbox",
            swiftSettings: strictSettings
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
                "CoreNetKit",
                "CoreNetKitTestServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(
                    name: "InMemoryTracing",
                    package: "swift-distributed-tracing",
                    condition: .when(traits: ["Tracing"])
                ),
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            ],
            // The OpenAPI document the committed client in OpenAPI/Generated was generated from;
            // the HAR 1.2 schema and the script that checks a file against it, read from the source
            // tree by the HAR tests.
            exclude: [
                "OpenAPI/openapi.yaml", "OpenAPI/openapi-generator-config.yaml", "OpenAPI/README.md",
                "HAR/har-1.2.schema.json", "HAR/check_har.py",
            ],
            swiftSettings: strictSettings
        ),
    ]
)
