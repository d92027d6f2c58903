// swift-tools-version:6.1
import PackageDescription

// Figures, not tests: `swift run -c release PredicateBenchmarks [results.json]` and
// `swift run -c release FetchBenchmarks [results.json]`
// and `swift build -c release --product ResultsControllerBenchmarks && .build/release/ResultsControllerBenchmarks [results.json]`
// and (with OPENCOREDATA_POSTGRES_URL) `swift run -c release PostgresBenchmarks [results.json]`.
// A separate package so the main package's `swift test` never builds or times it.
let package = Package(
    name: "PredicateBenchmarks",
    // #Predicate (the comparison baseline) needs macOS 14 on Apple platforms.
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named so the product resolves whatever the checkout directory is called.
        // With the PostgreSQL store (the package trait PostgreSQL): PostgresBenchmarks measures it.
        .package(name: "OpenCoreData", path: "..", traits: ["PostgreSQL"]),
        // A peer figure for the fetch benchmark: the same store file read through GRDB.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The PostgreSQL benchmark's baseline: the same SQL run and decoded by hand through postgres-nio.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The server load benchmark: the example app, and Hummingbird for the raw servers beside it.
        .package(path: "../Examples/BookServer"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // What the programs share: the company model of the fetch benchmarks (with its classes),
        // the `attribute` builder, a seeded generator, the peak memory and `blocking`.
        .target(name: "BenchmarkSupport", dependencies: [.product(name: "CoreData", package: "OpenCoreData")]),
        .executableTarget(
            name: "PredicateBenchmarks",
            dependencies: [.product(name: "OpenPredicate", package: "OpenCoreData"), "BenchmarkSupport"]
        ),
        // The raw SQLite C API, the baseline fetches are measured against.
        .systemLibrary(name: "RawSQLite", path: "Sources/RawSQLite"),
        // Callgrind client requests and mallinfo2() as functions, for instructions per row and heap.
        .target(name: "Probes", path: "Sources/Probes"),
        .executableTarget(
            name: "FetchBenchmarks",
            dependencies: [
                .product(name: "CoreData", package: "OpenCoreData"), "BenchmarkSupport", "RawSQLite", "Probes",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // `swift build -c release --product MigrationBenchmarks && .build/release/MigrationBenchmarks`:
        // lightweight migration in place of 10^5 and 10^6 rows against a raw SQLite copy of them.
        .executableTarget(
            name: "MigrationBenchmarks",
            dependencies: [.product(name: "CoreData", package: "OpenCoreData"), "BenchmarkSupport", "RawSQLite"]
        ),
        // `swift build -c release --product ResultsControllerBenchmarks && .build/release/ResultsControllerBenchmarks [results.json]`:
        // NSFetchedResultsController over 10^5 objects: the change report of 1,000 changes per save
        // against a full refetch of the same results.
        .executableTarget(
            name: "ResultsControllerBenchmarks",
            dependencies: [.product(name: "CoreData", package: "OpenCoreData"), "BenchmarkSupport"]
        ),
        // `swift build -c release --product SaveBenchmarks && .build/release/SaveBenchmarks [results.json]`: the save of
        // 10^5 new objects with and without validation rules, plain and typed, against the raw C API.
        .executableTarget(
            name: "SaveBenchmarks",
            dependencies: [.product(name: "CoreData", package: "OpenCoreData"), "BenchmarkSupport", "RawSQLite", "Probes"]
        ),
        // `swift build -c release --product BatchBenchmarks && .build/release/BatchBenchmarks`:
        // The batch requests against the raw statements, on SQLite (C API) and PostgreSQL (postgres-nio).
        .executableTarget(
            name: "BatchBenchmarks",
            dependencies: [
                "BenchmarkSupport", .product(name: "CoreData", package: "OpenCoreData"), "RawSQLite",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // `OPENCOREDATA_POSTGRES_URL=postgres://… swift run -c release PostgresBenchmarks [results.json]`:
        // the PostgreSQL store's fetches against postgres-nio, and read throughput with 1-8 processes.
        .executableTarget(
            name: "PostgresBenchmarks",
            dependencies: [
                .product(name: "CoreData", package: "OpenCoreData"), "BenchmarkSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // `swift build -c release --product ServerLoadBenchmarks && ./server-load.sh`: the example
        // BookServer's list and create endpoints under wrk's HTTP load on loopback, on SQLite and on
        // PostgreSQL, against the same routes written on the raw SQLite C API and on postgres-nio.
        .executableTarget(
            name: "ServerLoadBenchmarks",
            dependencies: [
                .product(name: "BookServer", package: "BookServer"), "RawSQLite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v5]
)
