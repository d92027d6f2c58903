// swift-tools-version:6.0
import PackageDescription

// A libFuzzer target for the predicate and expression parser, the printer, the in-memory
// evaluator and the SQL compiler, as a package of its own so that the main package's products
// and build are unaffected. Built with `-sanitize=fuzzer` by `run.sh`; without it, the
// executable replays the files it is given (for reproducing a finding in a debugger).
let package = Package(
    name: "OpenCoreDataFuzz",
    dependencies: [.package(name: "OpenCoreData", path: "..")],
    targets: [
        .executableTarget(
            name: "PredicateFuzz",
            dependencies: [.product(name: "CoreData", package: "OpenCoreData")])
    ],
    swiftLanguageModes: [.v5]
)
