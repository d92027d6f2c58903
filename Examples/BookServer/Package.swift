// swift-tools-version:6.1
import PackageDescription

// A small JSON API over a Core Data model, on Hummingbird 2: the embedded SQLite store by
// default, PostgreSQL when given a postgres:// URL. See Sources/OpenCoreData/OpenCoreData.docc/ServerApps.md.
let package = Package(
    name: "BookServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "book-server", targets: ["book-server"]),
        // The app as a library: Benchmarks/ServerLoadBenchmarks serves it in its own process
        // (`buildApplication`, unchanged) with a stall timer on its event loops.
        .library(name: "BookServer", targets: ["BookServer"]),
    ],
    dependencies: [
        // OpenCoreData itself, as `import CoreData`.
        .package(name: "OpenCoreData", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The app's and the store's loggers.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The app: the model, the store, the routes. Everything but the command line, so the
        // tests run the same application in process.
        .target(
            name: "BookServer",
            dependencies: [
                .product(name: "CoreData", package: "OpenCoreData"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The Xcode model file, copied as a folder, as apps do; loaded from Bundle.module.
            resources: [.copy("Resources/Books.xcdatamodeld")]),
        .executableTarget(
            name: "book-server",
            dependencies: [
                "BookServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "BookServerTests",
            dependencies: [
                "BookServer",
                .product(name: "CoreData", package: "OpenCoreData"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
    ]
)
