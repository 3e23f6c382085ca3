// swift-tools-version:6.2
import PackageDescription

// Mailroom, MailroomTesting and MailroomFoundation need no package. The integrations are products of this package
// too, and each guards what it needs with a trait (none is on by default), so a client resolves a dependency only
// when it enables the trait that uses it:
//
//     .package(url: "https://<host>/<owner>/Mailroom.git", branch: "main", traits: ["Postgres"])
//
// Without its trait, an integration's module is empty. Build everything with `swift build --enable-all-traits`.
let traits: Set<Trait> = [
    .trait(
        name: "Observability",
        description: "MailroomObservability: tracing, logging and metrics with swift-distributed-tracing, swift-log "
            + "and swift-metrics."),
    .trait(
        name: "Postgres",
        description: "MailroomPostgres: typed mail between processes through PostgreSQL, with postgres-nio."),
    .default(enabledTraits: []),
]

let observability = TargetDependencyCondition.when(traits: ["Observability"])
let postgres = TargetDependencyCondition.when(traits: ["Postgres"])

/// What the programs that link offices use: the examples, the multi-process tests' peer and the benchmark.
let postgresProgram: [Target.Dependency] = [
    "Mailroom", "MailroomPostgres",
    .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
    .product(name: "Logging", package: "swift-log", condition: postgres),
    .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: postgres),
]

let package = Package(
    name: "Mailroom",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Mailroom", targets: ["Mailroom"]),
        .library(name: "MailroomTesting", targets: ["MailroomTesting"]),
        .library(name: "MailroomFoundation", targets: ["MailroomFoundation"]),
        .library(name: "MailroomObservability", targets: ["MailroomObservability"]),
        .library(name: "MailroomPostgres", targets: ["MailroomPostgres"]),
    ],
    traits: traits,
    dependencies: [
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(name: "Mailroom", dependencies: ["_MailroomAtomics"]),
        .target(name: "_MailroomAtomics"),
        .target(name: "MailroomTesting", dependencies: ["Mailroom"]),
        .target(name: "MailroomFoundation", dependencies: ["Mailroom"]),
        .target(
            name: "MailroomObservability",
            dependencies: [
                "Mailroom",
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: observability),
                .product(name: "Logging", package: "swift-log", condition: observability),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: observability),
            ]
        ),
        .target(
            name: "MailroomPostgres",
            dependencies: [
                "Mailroom",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
                .product(name: "Logging", package: "swift-log", condition: postgres),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: postgres),
                .product(name: "NIOCore", package: "swift-nio", condition: postgres),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: postgres),
                // With Observability too: the poster's trace context travels with linked mail, and the link's
                // metrics.
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: observability),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: observability),
            ]
        ),

        .executableTarget(name: "Tour", dependencies: ["Mailroom"], path: "Examples/Tour"),
        .executableTarget(name: "ConcurrencyTour", dependencies: ["Mailroom"], path: "Examples/ConcurrencyTour"),
        .executableTarget(name: "FeaturesTour", dependencies: ["Mailroom"], path: "Examples/Features"),
        .executableTarget(
            name: "FoundationTour", dependencies: ["Mailroom", "MailroomFoundation"], path: "Examples/FoundationBridge"),
        .executableTarget(
            name: "ObservabilityExample",
            dependencies: [
                "Mailroom", "MailroomObservability",
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "Logging", package: "swift-log", condition: observability),
                .product(name: "InMemoryLogging", package: "swift-log", condition: observability),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: observability),
            ],
            path: "Examples/Observability"
        ),
        .executableTarget(
            name: "PostgresExample",
            dependencies: postgresProgram,
            path: "Examples/Postgres"
        ),
        .executableTarget(
            name: "WelcomeEmails",
            dependencies: postgresProgram + [
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: postgres)
            ],
            path: "Examples/WelcomeEmails",
            exclude: ["check.sh"]
        ),

        .target(name: "MailroomTestSupport", path: "Tests/MailroomTestSupport"),
        .testTarget(name: "MailroomTests", dependencies: ["Mailroom", "MailroomTesting", "MailroomTestSupport"]),
        .testTarget(name: "MailroomFoundationTests", dependencies: ["MailroomFoundation", "MailroomTesting"]),
        .testTarget(
            name: "MailroomObservabilityTests",
            dependencies: [
                "Mailroom", "MailroomObservability",
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: observability),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "Logging", package: "swift-log", condition: observability),
                .product(name: "InMemoryLogging", package: "swift-log", condition: observability),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: observability),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: observability),
            ]
        ),
        .testTarget(
            name: "MailroomPostgresTests",
            dependencies: [
                "Mailroom", "MailroomPostgres", "MailroomTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
                .product(name: "Logging", package: "swift-log", condition: postgres),
                .product(name: "NIOCore", package: "swift-nio", condition: postgres),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: postgres),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "InMemoryLogging", package: "swift-log", condition: observability),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: observability),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: observability),
            ]
        ),
        // Tools the tests and CI run: a million register/deallocate cycles, a process of the multi-process
        // tests, and the link's benchmark against raw NOTIFY/LISTEN.
        .executableTarget(name: "MemoryCheck", dependencies: ["Mailroom"], path: "Tests/MemoryCheck"),
        .executableTarget(
            name: "LinkPeer",
            // With Observability too: `LinkPeer --trace` traces its mail in memory and reads its link's metrics.
            dependencies: postgresProgram + [
                .target(name: "MailroomObservability", condition: observability),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: observability),
            ],
            path: "Tests/LinkPeer"
        ),
        .executableTarget(
            name: "LinkBenchmark",
            dependencies: postgresProgram + [
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: observability),
            ],
            path: "Benchmarks/LinkBenchmark"
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Warnings are errors in every build of this package (SwiftPM does not apply this to it as a dependency).
for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
