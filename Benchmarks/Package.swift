// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "MailroomBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Mailroom", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "InstructionCounts",
            dependencies: [.product(name: "Mailroom", package: "Mailroom")]
        ),
        .executableTarget(
            name: "Comparison",
            dependencies: [.product(name: "Mailroom", package: "Mailroom"), "HeapCounters"]
        ),
        // glibc's mallinfo2(), which Swift's Glibc module does not show: the heap bytes in use, for the
        // bytes-per-registration gate and the Comparison tool's memory scenario.
        .target(name: "HeapCounters"),
        .executableTarget(
            name: "RegistrationBytes",
            dependencies: [.product(name: "Mailroom", package: "Mailroom"), "HeapCounters"]
        ),
        .executableTarget(
            name: "PostBenchmarks",
            dependencies: [
                .product(name: "Mailroom", package: "Mailroom"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/PostBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
