// swift-tools-version:6.2
import PackageDescription

// A Hummingbird 2 service that keeps a price cache in step with its other instances through MailroomPostgres:
// the link runs as a service of the application, which takes no traffic until the link listens. A service adds
// Mailroom by URL with the Postgres trait, `.package(url: "https://<host>/<owner>/Mailroom.git", branch: "main",
// traits: ["Postgres"])`; this example names the checkout it is in instead. CI runs `check.sh`.
let package = Package(
    name: "PriceService",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Mailroom", path: "../..", traits: ["Postgres"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "PriceService",
            dependencies: [
                .product(name: "Mailroom", package: "Mailroom"),
                .product(name: "MailroomPostgres", package: "Mailroom"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
