// swift-tools-version:6.2
import PackageDescription

// A client of Mailroom, written as an app or server team would: the ways existing classes become recipients, in
// Swift 6 and in Swift 5 language mode, and a PonyExpress-style test suite in Swift 5 mode. CI builds and runs
// it: `swift run AdoptingSwift6`, `swift run AdoptingSwift5`, `swift test`.
let package = Package(
    name: "Adopting",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Mailroom", path: "../..")],
    targets: [
        .target(name: "AdoptingSupport"),
        .executableTarget(
            name: "AdoptingSwift6",
            dependencies: ["AdoptingSupport", .product(name: "Mailroom", package: "Mailroom")],
            // Swift 6 mode code that adopts Mailroom as the docs say builds without a warning.
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-warnings-as-errors"])]
        ),
        .executableTarget(
            name: "AdoptingSwift5",
            dependencies: ["AdoptingSupport", .product(name: "Mailroom", package: "Mailroom")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "PonyExpressStyleTests",
            dependencies: [.product(name: "Mailroom", package: "Mailroom")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
