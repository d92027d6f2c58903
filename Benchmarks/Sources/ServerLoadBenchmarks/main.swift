import BookServer
import Foundation
import Hummingbird
import Logging
import NIOPosix

// The servers of the load benchmark, one per process (so memory is measured per server), driven
// by ../../server-load.sh with wrk on loopback:
//
//   ServerLoadBenchmarks prepare --store <sqlite path | postgres URL> [--books 10000]
//       Opens the store through the example's `buildApplication` (so Core Data makes the schema,
//       as the example would), then fills it with the benchmark's books by plain SQL.
//   ServerLoadBenchmarks serve coredata --store … --port P
//       The example app, `buildApplication` unchanged.
//   ServerLoadBenchmarks serve raw --store … --port P
//       The same two routes, `GET /books` (one query shape) and `POST /books`, written on the SQLite
//       C API or on postgres-nio with the SQL the store runs, on the same Hummingbird.
//
// Both servers run a stall timer on every event loop and print what it saw when they stop
// (SIGINT or SIGTERM), as lines starting `stall`.

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            """
            usage: ServerLoadBenchmarks prepare --store <path|postgres URL> [--books N]
                   ServerLoadBenchmarks serve coredata|raw --store <path|postgres URL> [--port P]

            """.utf8))
    exit(2)
}

/// The value after `name` in the arguments.
func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let storeArgument = option("--store") else { usage() }
let store: StoreLocation
do {
    store = try StoreLocation(storeArgument)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
let port = option("--port").flatMap { Int($0) } ?? 8080

switch arguments[1] {
case "prepare":
    let count = option("--books").flatMap { Int($0) } ?? 10_000
    // Opens (and so creates) the store as the example does, then drops the app unrun.
    _ = try await buildApplication(AppConfiguration(port: port, store: store, logLevel: .warning))
    let started = ContinuousClock.now
    switch store {
    case .sqlite(let url): try RawSQLiteBooks(path: url.path).seed(count)
    case .postgreSQL(let url): try await RawPostgresBooks(url: url).seed(count)
    }
    print("prepared \(store): \(count) books in \(ContinuousClock.now - started)")
    exit(0)
case "serve":
    guard arguments.count >= 3 else { usage() }
    let stalls = StallTimer(group: MultiThreadedEventLoopGroup.singleton)
    switch arguments[2] {
    case "coredata":
        let app = try await buildApplication(AppConfiguration(port: port, store: store, logLevel: .warning))
        try await app.runService()
    case "raw":
        let app = try await buildRawApplication(store: store, port: port)
        try await app.runService()
    default:
        usage()
    }
    print(stalls.report())
default:
    usage()
}
