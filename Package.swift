// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "OpenCoreData",
    products: [
        // Everything: the Apple-shaped Core Data classes and the predicate language.
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        // `import CoreData` on Linux: a one-file module that re-exports OpenCoreData.
        .library(name: "CoreData", targets: ["CoreData"]),
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
        // SQL tracing (`-com.apple.CoreData.SQLDebug N`) goes through swift-log.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `@Managed` is a macro (it writes a property's accessors, so it works in extensions too).
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"700.0.0"),
        // The PostgreSQL store's wire protocol and connection pool.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "OpenPredicate"),
        // Stores see a lowered schema, fetch plans and row snapshots, never model or object classes.
        .target(name: "OpenStoreCore", dependencies: ["OpenPredicate"]),
        .target(name: "OpenInMemoryStore", dependencies: ["OpenStoreCore"]),
        // The system's libsqlite3 (headers: Debian package libsqlite3-dev; `.ci/run` installs it).
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .yum(["sqlite-devel"]), .brew(["sqlite"])]),
        // Apple's SQLite store layout: connection, statements, metadata, tables and columns.
        .target(
            name: "OpenSQLiteStore",
            dependencies: ["OpenStoreCore", "OpenInMemoryStore", "CSQLite", .product(name: "Logging", package: "swift-log")]),
        // The PostgreSQL store (`NSPostgreSQLStoreType`): connection pool, sessions, transactions,
        // LISTEN/NOTIFY over postgres-nio; the SQL compiler is the SQLite store's, with a dialect.
        // Empty without the trait `PostgreSQL` (every file is `#if PostgreSQL`).
        .target(
            name: "OpenPostgreSQLStore",
            dependencies: [
                "OpenStoreCore", "OpenSQLiteStore", .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]),
        // `@Managed`'s expansion: a compiler plug-in, built for the machine that compiles.
        .macro(
            name: "OpenCoreDataMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]),
        .target(
            name: "OpenCoreData",
            dependencies: [
                "OpenPredicate", "OpenStoreCore", "OpenInMemoryStore", "OpenSQLiteStore", "OpenCoreDataMacros",
                .target(name: "OpenPostgreSQLStore", condition: .when(traits: ["PostgreSQL"])),
            ]),
        .target(name: "CoreData", dependencies: ["OpenCoreData"]),
        // The command-line tool: a client of `CoreData`, plus the `package` entry points of the
        // store modules where Apple's API has none (store metadata, SQL, query plans).
        .executableTarget(
            name: "coredata",
            dependencies: [
                "CoreData", "OpenCoreData", "OpenSQLiteStore", "OpenStoreCore",
                .target(name: "OpenPostgreSQLStore", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // What the test targets share: the PostgreSQL test server, a seeded random generator,
        // temporary folders, the shared real-world files, model builders, a log capture for SQL
        // traces. Written against `CoreData` (Apple's API) and swift-log only.
        .target(
            name: "TestSupport", dependencies: ["CoreData", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport"),
        // A writer the crash-safety tests run in a child process and kill (not a product).
        .executableTarget(name: "StoreCrashWriter", dependencies: ["CoreData", "TestSupport"], path: "Tests/StoreCrashWriter"),
        // An app server of the several-servers tests, run as child processes (not a product).
        .executableTarget(name: "ServerWorker", dependencies: ["CoreData", "TestSupport"], path: "Tests/ServerWorker"),
        .testTarget(name: "OpenPredicateTests", dependencies: ["OpenPredicate", "TestSupport"]),
        .testTarget(name: "OpenInMemoryStoreTests", dependencies: ["OpenInMemoryStore", "TestSupport"]),
        // Needs a server: OPENCOREDATA_POSTGRES_URL (`.ci/postgres start` makes one); skipped
        // without it, failing under CI.
        .testTarget(name: "OpenPostgreSQLStoreTests", dependencies: ["OpenPostgreSQLStore", "OpenStoreCore", "TestSupport"]),
        .testTarget(
            name: "OpenSQLiteStoreTests",
            dependencies: [
                "OpenSQLiteStore", "OpenInMemoryStore", "OpenPostgreSQLStore", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "OpenCoreDataTests",
            dependencies: ["OpenCoreData", "OpenSQLiteStore", "TestSupport", .product(name: "Logging", package: "swift-log")],
            // Model files for mergedModel(from: [Bundle.module]); copied as folders, as apps do.
            resources: [.copy("Resources/Tiny.xcdatamodeld"), .copy("Resources/Extra.xcdatamodel")]),
        // Written the way Apple users write Core Data code: `import Foundation` + `import CoreData`.
        .testTarget(name: "CoreDataSourceTests", dependencies: ["CoreData", "TestSupport"]),
        .testTarget(
            name: "OpenCoreDataMacrosTests",
            dependencies: [
                "OpenCoreDataMacros", .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ]),
        // Core Data code and tests as apps write them on Apple platforms: XCTest, `import
        // Foundation` + `import XCTest` + `import CoreData`, a model file in the bundle, generated
        // subclasses, typed key paths. Ported with only the README's mechanical edits.
        .testTarget(
            name: "AppleCodeTests", dependencies: ["CoreData", "TestSupport"],
            resources: [.copy("Resources/Bookshelf.xcdatamodeld"), .copy("Resources/Pets.xcdatamodeld")]),
        // `coredata` run as a process, as a user runs it: output, errors and exit codes.
        .testTarget(name: "coredataTests", dependencies: ["CoreData", "OpenSQLiteStore", "TestSupport", "coredata"]),
        // Kills `StoreCrashWriter` at random points and checks the store it leaves.
        .testTarget(
            name: "StoreCrashTests",
            dependencies: ["CoreData", "OpenSQLiteStore", "TestSupport", "StoreCrashWriter", "ServerWorker"]),
    ],
    swiftLanguageModes: [.v5]
)
