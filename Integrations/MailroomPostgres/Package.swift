// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "MailroomPostgres",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "MailroomPostgres", targets: ["MailroomPostgres"])
    ],
    dependencies: [
        .package(name: "Mailroom", path: "../.."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "MailroomPostgres",
            dependencies: [
                .product(name: "Mailroom", package: "Mailroom"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "LinkPeer",
            dependencies: [
                "MailroomPostgres",
                .product(name: "Mailroom", package: "Mailroom"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "PostgresExample",
            dependencies: [
                "MailroomPostgres",
                .product(name: "Mailroom", package: "Mailroom"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "LinkBenchmark",
            dependencies: [
                "MailroomPostgres",
                .product(name: "Mailroom", package: "Mailroom"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MailroomPostgresTests",
            dependencies: [
                "MailroomPostgres",
                .product(name: "Mailroom", package: "Mailroom"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
