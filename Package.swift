// swift-tools-version:6.0
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
    dependencies: [
        // SQL tracing (`-com.apple.CoreData.SQLDebug N`) goes through swift-log.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
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
        .target(
            name: "OpenCoreData", dependencies: ["OpenPredicate", "OpenStoreCore", "OpenInMemoryStore", "OpenSQLiteStore"]),
        .target(name: "CoreData", dependencies: ["OpenCoreData"]),
        .executableTarget(name: "coredata", dependencies: ["CoreData"]),
        .testTarget(name: "OpenPredicateTests", dependencies: ["OpenPredicate"]),
        .testTarget(name: "OpenInMemoryStoreTests", dependencies: ["OpenInMemoryStore"]),
        .testTarget(
            name: "OpenSQLiteStoreTests",
            dependencies: ["OpenSQLiteStore", "OpenInMemoryStore", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "OpenCoreDataTests",
            dependencies: ["OpenCoreData", "OpenSQLiteStore", .product(name: "Logging", package: "swift-log")],
            // Model files for mergedModel(from: [Bundle.module]); copied as folders, as apps do.
            resources: [.copy("Resources/Tiny.xcdatamodeld"), .copy("Resources/Extra.xcdatamodel")]),
        // Written the way Apple users write Core Data code: `import Foundation` + `import CoreData`.
        // Also runs `coredata demo`, the README's first command, as a process.
        .testTarget(name: "CoreDataSourceTests", dependencies: ["CoreData", "coredata"]),
    ],
    swiftLanguageModes: [.v5]
)
