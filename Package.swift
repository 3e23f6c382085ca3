// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "Mailroom",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Mailroom", targets: ["Mailroom"]),
        .library(name: "MailroomTesting", targets: ["MailroomTesting"]),
        .library(name: "MailroomFoundation", targets: ["MailroomFoundation"]),
    ],
    targets: [
        .target(name: "Mailroom", dependencies: ["_MailroomAtomics"]),
        .target(name: "_MailroomAtomics"),
        .target(name: "MailroomTesting", dependencies: ["Mailroom"]),
        .target(name: "MailroomFoundation", dependencies: ["Mailroom"]),
        .executableTarget(name: "Tour", dependencies: ["Mailroom"], path: "Examples/Tour"),
        .executableTarget(name: "ConcurrencyTour", dependencies: ["Mailroom"], path: "Examples/ConcurrencyTour"),
        .executableTarget(name: "FeaturesTour", dependencies: ["Mailroom"], path: "Examples/Features"),
        .executableTarget(
            name: "FoundationTour", dependencies: ["Mailroom", "MailroomFoundation"], path: "Examples/FoundationBridge"),
        .testTarget(name: "MailroomTests", dependencies: ["Mailroom", "MailroomTesting"]),
        .testTarget(name: "MailroomFoundationTests", dependencies: ["MailroomFoundation", "MailroomTesting"]),
        .executableTarget(name: "MemoryCheck", dependencies: ["Mailroom"], path: "Tests/MemoryCheck"),
    ],
    swiftLanguageModes: [.v6]
)
