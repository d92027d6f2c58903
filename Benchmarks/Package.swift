// swift-tools-version:6.0
import PackageDescription

// Figures, not tests: `swift run -c release PredicateBenchmarks [results.json]` and
// `swift run -c release FetchBenchmarks [results.json]`.
// A separate package so the main package's `swift test` never builds or times it.
let package = Package(
    name: "PredicateBenchmarks",
    // #Predicate (the comparison baseline) needs macOS 14 on Apple platforms.
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named so the product resolves whatever the checkout directory is called.
        .package(name: "OpenCoreData", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "PredicateBenchmarks",
            dependencies: [.product(name: "OpenPredicate", package: "OpenCoreData")]
        ),
        // The raw SQLite C API, the baseline fetches are measured against.
        .systemLibrary(name: "RawSQLite", path: "Sources/RawSQLite"),
        .executableTarget(
            name: "FetchBenchmarks",
            dependencies: [.product(name: "CoreData", package: "OpenCoreData"), "RawSQLite"]
        ),
    ],
    swiftLanguageModes: [.v5]
)
