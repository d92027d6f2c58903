// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

// Every library target and the tool build in the Swift 6 language mode (complete concurrency
// checking); the test targets stay in Swift 5, except `ServerConcurrencyTests`, which proves the
// public API in Swift 6 as a server uses it.
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "OpenCoreData",
    products: [
        // Everything: the Apple-shaped Core Data classes and the predicate language.
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        // `import CoreData` on Linux: a one-file module that re-exports OpenCoreData.
        .library(name: "CoreData", targets: ["CoreData"]),
        // `import SwiftData` on Linux: SwiftData's API (`@Model`, `ModelContainer`, `ModelContext`,
        // `FetchDescriptor`) on the same engine.
        .library(name: "SwiftData", targets: ["SwiftData"]),
        // NSPredicate, NSExpression and NSSortDescriptor on their own.
        .library(name: "OpenPredicate", targets: ["OpenPredicate"]),
        .executable(name: "coredata", targets: ["coredata"]),
    ],
    traits: [
        // The PostgreSQL store (`NSPostgreSQLStoreType`) and the SwiftNIO packages it needs. A
        // client that wants neither: `.package(url: …, from: …, traits: [])`.
        .trait(name: "PostgreSQL", description: "The PostgreSQL store, NSPostgreSQLStoreType (on postgres-nio)"),
        .default(enabledTraits: ["PostgreSQL"]),
    ],
    dependencies: [
        // The command-line tool's argument parsing.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SQL tracing (`-com.apple.CoreData.SQLDebug N`, a store's `Logger`) goes through swift-log.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Counters and timers of fetches, saves, rows, conflicts and pool connections.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Spans around fetch, count and save, with OpenTelemetry's database attributes.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // `NSPersistentContainer` as a `Service`: a server's graceful shutdown closes its stores.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `@Managed` is a macro (it writes a property's accessors, so it works in extensions too).
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"700.0.0"),
        // The PostgreSQL store's wire protocol and connection pool.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The event loops of the PostgreSQL store's connection tests (postgres-nio runs on SwiftNIO).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `swift package generate-documentation` (the DocC catalogs beside the code; `.ci/run` builds them).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "OpenPredicate", swiftSettings: swift6),
        // Stores see a lowered schema, fetch plans and row snapshots, never model or object classes.
        .target(name: "OpenStoreCore", dependencies: ["OpenPredicate"], swiftSettings: swift6),
        .target(name: "OpenInMemoryStore", dependencies: ["OpenPredicate", "OpenStoreCore"], swiftSettings: swift6),
        // The system's libsqlite3 (headers: Debian package libsqlite3-dev; `.ci/run` installs it).
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .yum(["sqlite-devel"]), .brew(["sqlite"])]),
        // The system's zlib (headers: Debian package zlib1g-dev; `.ci/run` installs it), to read
        // the model a store caches (`Z_MODELCACHE`).
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"]), .yum(["zlib-devel"])]),
        // Dialect-neutral SQL for both SQL stores: the compiler (fetch plans to SQL), Apple's table
        // layout, the row reader/writer, the migration plan, and the one fetch pipeline (compile →
        // run → in-memory fallback). Each SQL store adds only its connection and dialect spellings.
        .target(
            name: "OpenSQLStore",
            dependencies: [
                "OpenPredicate", "OpenStoreCore", "OpenInMemoryStore", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swift6),
        // The SQLite store: connection, statements, Apple's SQL functions, the store file.
        .target(
            name: "OpenSQLiteStore",
            dependencies: [
                "OpenPredicate", "OpenStoreCore", "OpenInMemoryStore", "OpenSQLStore", "CSQLite", "CZlib",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swift6),
        // The PostgreSQL store (`NSPostgreSQLStoreType`): connection pool, sessions, transactions,
        // LISTEN/NOTIFY over postgres-nio; PostgreSQL's dialect of the neutral SQL layer.
        // Empty without the trait `PostgreSQL` (every file is `#if PostgreSQL`).
        .target(
            name: "OpenPostgreSQLStore",
            dependencies: [
                "OpenPredicate", "OpenStoreCore", "OpenInMemoryStore", "OpenSQLStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ],
            swiftSettings: swift6),
        // `@Managed`'s expansion: a compiler plug-in, built for the machine that compiles.
        .macro(
            name: "OpenCoreDataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            swiftSettings: swift6),
        .target(
            name: "OpenCoreData",
            dependencies: [
                "OpenPredicate", "OpenStoreCore", "OpenInMemoryStore", "OpenSQLStore", "OpenSQLiteStore", "OpenCoreDataMacros",
                .target(name: "OpenPostgreSQLStore", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swift6),
        .target(name: "CoreData", dependencies: ["OpenPredicate", "OpenCoreData"], swiftSettings: swift6),
        .target(name: "SwiftData", dependencies: ["OpenPredicate", "OpenCoreData", "OpenCoreDataMacros"], swiftSettings: swift6),
        // The command-line tool: a client of `CoreData`, plus the `package` entry points of the
        // store modules where Apple's API has none (store metadata, SQL, query plans).
        .executableTarget(
            name: "coredata",
            dependencies: [
                "CoreData", "OpenCoreData", "OpenSQLStore", "OpenSQLiteStore", "OpenStoreCore",
                .target(name: "OpenPostgreSQLStore", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swift6),
        // What the test targets share: the PostgreSQL test server, a seeded random generator,
        // temporary folders, the shared real-world files, model builders (of `CoreData` models,
        // and of the schemas the stores see), a log capture for SQL traces, test
        // backends of swift-metrics and swift-distributed-tracing.
        .target(
            name: "TestSupport",
            dependencies: [
                "CoreData", "OpenStoreCore", "OpenSQLStore", "OpenSQLiteStore", "OpenPostgreSQLStore", "CZlib",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Tests/TestSupport"),
        // A writer the crash-safety tests run in a child process and kill (not a product).
        .executableTarget(name: "StoreCrashWriter", dependencies: ["CoreData", "TestSupport"], path: "Tests/StoreCrashWriter"),
        // An app server of the several-servers tests, run as child processes (not a product).
        .executableTarget(name: "ServerWorker", dependencies: ["CoreData", "TestSupport"], path: "Tests/ServerWorker"),
        // One test target per module.
        .testTarget(name: "OpenPredicateTests", dependencies: ["OpenPredicate", "TestSupport"]),
        .testTarget(name: "OpenStoreCoreTests", dependencies: ["OpenPredicate", "OpenStoreCore", "TestSupport"]),
        .testTarget(
            name: "OpenInMemoryStoreTests", dependencies: ["OpenPredicate", "OpenStoreCore", "OpenInMemoryStore", "TestSupport"]),
        // The neutral SQL layer, run on SQLite and, with a server, on PostgreSQL (both dialects).
        .testTarget(
            name: "OpenSQLStoreTests",
            dependencies: [
                "OpenPredicate", "OpenStoreCore", "OpenInMemoryStore", "OpenSQLStore", "OpenSQLiteStore",
                "OpenPostgreSQLStore", "TestSupport",
            ]),
        .testTarget(
            name: "OpenSQLiteStoreTests",
            dependencies: [
                "OpenPredicate", "OpenStoreCore", "OpenInMemoryStore", "OpenSQLStore", "OpenSQLiteStore", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Needs a server: OPENCOREDATA_POSTGRES_URL (`.ci/postgres start` makes one); skipped
        // without it, failing under CI.
        .testTarget(
            name: "OpenPostgreSQLStoreTests",
            dependencies: [
                "OpenStoreCore", "OpenSQLStore", "OpenPostgreSQLStore", "TestSupport",
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
            ]),
        .testTarget(
            name: "OpenCoreDataTests",
            dependencies: [
                "OpenCoreData", "OpenStoreCore", "OpenSQLStore", "OpenSQLiteStore", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // Model files for mergedModel(from: [Bundle.module]); copied as folders, as apps do.
            resources: [.copy("Resources/Tiny.xcdatamodeld"), .copy("Resources/Extra.xcdatamodel")]),
        // Written the way Apple users write Core Data code: `import Foundation` + `import CoreData`.
        .testTarget(
            name: "CoreDataSourceTests",
            dependencies: [
                "CoreData", "TestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // The macros' expansions and diagnostics. The test target compiles the macros' own files
        // (`ManagedMacro.swift` and `ModelMacro.swift` are links to them) instead of depending on
        // the macro target: SwiftPM builds every test target for the host, as a plug-in's
        // dependency, once one of them depends on a macro, and with it every library the tests
        // use, a second time beside the build of `coredata` and the examples (both BoringSSL copies
        // of postgres-nio's dependencies included). CI's build step took 1,540 s on 2 cores with
        // that dependency and 1,104 s without; swift-syntax is now built for the tests too.
        .testTarget(
            name: "OpenCoreDataMacrosTests",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ]),
        // Core Data code and tests as apps write them on Apple platforms: XCTest, `import
        // Foundation` + `import XCTest` + `import CoreData`, a model file in the bundle, generated
        // subclasses, typed key paths. Ported with only the mechanical edits the porting article lists.
        .testTarget(
            name: "AppleCodeTests", dependencies: ["CoreData", "TestSupport"],
            resources: [.copy("Resources/Bookshelf.xcdatamodeld"), .copy("Resources/Pets.xcdatamodeld")]),
        // SwiftData code as apps write it (`import SwiftData`, XCTest): a trip planner's models, versioned
        // schemas, model actors; a few files also import CoreData to check the model a schema makes.
        .testTarget(name: "SwiftDataTests", dependencies: ["SwiftData", "CoreData", "TestSupport"]),
        // Server code as a Hummingbird or Vapor app writes it, in the Swift 6 language mode:
        // `import CoreData` only, a Sendable app state holding the container, hundreds of tasks
        // each with its own context, object IDs crossing tasks, the view context on the main
        // actor; on every store. It must build without a warning; CI runs it under ThreadSanitizer.
        .testTarget(name: "ServerConcurrencyTests", dependencies: ["CoreData", "TestSupport"], swiftSettings: swift6),
        // `coredata` run as a process, as a user runs it: output, errors and exit codes.
        .testTarget(
            name: "coredataTests", dependencies: ["CoreData", "OpenSQLStore", "OpenSQLiteStore", "TestSupport", "coredata"]),
        // Kills `StoreCrashWriter` at random points and checks the store it leaves.
        .testTarget(
            name: "StoreCrashTests",
            dependencies: ["CoreData", "OpenSQLStore", "OpenSQLiteStore", "TestSupport", "StoreCrashWriter", "ServerWorker"]),
    ],
    swiftLanguageModes: [.v5]
)

// The ThreadSanitizer step of `.ci/run` sets OPENCOREDATA_SANITIZER_TESTS=1: that build (in a
// folder of its own, every module instrumented) then has only the test files its filter runs,
// and none of the executables, so that it compiles the library and a few hundred lines of tests
// rather than every test target again (about 4 of its 10 minutes on 2 cores).
if Context.environment["OPENCOREDATA_SANITIZER_TESTS"] == "1" {
    // The files of each test target the step runs; an empty list for all of them.
    let sanitizedSources: [String: [String]] = [
        "OpenStoreCoreTests": ["CombiningLockTests.swift"],
        "OpenSQLStoreTests": ["SaveTests.swift", "SQLiteReaderTests.swift"],
        "OpenCoreDataTests": [
            "Context/ConcurrencyStressTests.swift", "Context/BatchUniquingTests.swift", "Context/ContextFixture.swift",
            "Context/RegisteredObjectLifetimeTests.swift",
            "Support/CompanyModel.swift",
        ],
        "ServerConcurrencyTests": [],
        "SwiftDataTests": ["ModelActorTests.swift"],
    ]
    package.products.removeAll { $0.name == "coredata" }
    package.targets.removeAll { target in
        switch target.type {
        case .test: sanitizedSources[target.name] == nil
        case .executable: true
        default: false
        }
    }
    for target in package.targets where target.type == .test {
        if let sources = sanitizedSources[target.name], !sources.isEmpty { target.sources = sources }
        target.resources = nil
    }
}

// With OPENCOREDATA_PREBUILT_MACROS=1 the macro plug-in comes from an earlier build, named on the
// command line (`-load-plugin-executable <path>#OpenCoreDataMacros`), and the package leaves out
// the macro target and so swift-syntax. `.ci/run` sets it for the ThreadSanitizer and fuzz steps,
// which take the main build's plug-in: a sanitized build compiles its plug-ins sanitized too, and
// swift-syntax under ThreadSanitizer took about 250 of that step's 350 s on 2 cores.
if Context.environment["OPENCOREDATA_PREBUILT_MACROS"] == "1" {
    package.targets.removeAll { $0.name == "OpenCoreDataMacros" || $0.name == "OpenCoreDataMacrosTests" }
    for target in package.targets {
        target.dependencies.removeAll { dependency in
            switch dependency {
            case .byNameItem(let name, _), .targetItem(let name, _): name == "OpenCoreDataMacros"
            default: false
            }
        }
    }
}
