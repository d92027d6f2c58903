// swift-tools-version:6.1
import PackageDescription

// A libFuzzer target for the predicate and expression parser, the printer, the in-memory
// evaluator and the SQL compiler, as a package of its own so that the main package's products
// and build are unaffected. `run.sh` builds it with coverage instrumentation and a sanitizer and
// links libFuzzer (the archive it names in FUZZER_LIB); a plain `swift build` makes an
// executable that replays the files it is given (for reproducing a finding in a debugger).
//
// libFuzzer is linked into the fuzz target alone: a `-Xlinker` flag would reach every link of
// the build, the `@Managed` macro's plug-in included, and a changed plug-in recompiles every
// module that uses it.
let fuzzerLibrary = Context.environment["FUZZER_LIB"] ?? ""
let linkFuzzer: [LinkerSetting] =
    fuzzerLibrary.isEmpty
    ? []
    : [.unsafeFlags(["-Xlinker", fuzzerLibrary, "-Xlinker", "--undefined=LLVMFuzzerRunDriver", "-lstdc++"])]

let package = Package(
    name: "OpenCoreDataFuzz",
    // Without the PostgreSQL store (its trait off): the fuzz target reaches none of it, and
    // SwiftNIO and BoringSSL built with sanitizers would take most of the run.
    dependencies: [.package(name: "OpenCoreData", path: "..", traits: [])],
    targets: [
        // libFuzzer's driver entry point, declared for Swift.
        .target(name: "FuzzerDriver"),
        .executableTarget(
            name: "PredicateFuzz",
            dependencies: ["FuzzerDriver", .product(name: "CoreData", package: "OpenCoreData")],
            linkerSettings: linkFuzzer),
    ],
    swiftLanguageModes: [.v5]
)
