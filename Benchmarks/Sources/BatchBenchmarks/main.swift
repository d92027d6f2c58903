// Prints figures for the batch requests against their floors, in the same run: on an
// NSSQLiteStoreType store, the raw SQLite C API running the same statement; on an
// NSPostgreSQLStoreType store (when OPENCOREDATA_POSTGRES_URL is set), postgres-nio running the same
// SQL on its own connection. Nothing here is a test.
//
//     cd Benchmarks && swift build -c release --product BatchBenchmarks && .build/release/BatchBenchmarks
//
// One entity, `Event`: day (Integer 64), name (String). The store is made by Core Data, then filled
// with ROWS rows (default 1,000,000) outside it, `day` spread by a fixed stride. Lines, each
// against its raw statement, sides taking turns, ROUNDS (default 3) rounds, medians printed:
// - delete: `NSBatchDeleteRequest` of `day < ROWS / 2` (half the rows; result type count) against
//   `DELETE FROM ZEVENT WHERE ZDAY < ?`, each side on a fresh copy of the rows;
// - update: `NSBatchUpdateRequest` setting `day = day + 1` on every row (result type count) against
//   `UPDATE ZEVENT SET ZDAY = ZDAY + 1, Z_OPT = Z_OPT + 1`: the row's version rises as the request
//   raises it, so that contexts holding the objects see the change when they save.
// - insert: `NSBatchInsertRequest` of INSERT_ROWS (default 100,000) dictionaries into an empty store
//   (result type count; the dictionaries made before the clock starts, as an app's feed) against a
//   prepared `INSERT` run once per row in one transaction, then `Z_PRIMARYKEY.Z_MAX` raised (on
//   PostgreSQL: the store's own statements, `INSERT … VALUES` 256 rows at a time).
// Then the peak RSS. The run checks the rows each side leaves and exits non-zero if they are not the
// ones expected.

import BenchmarkSupport
import CoreData
import PostgresNIO
import RawSQLite

#if canImport(Glibc)
    import Glibc
#endif

let environment = ProcessInfo.processInfo.environment
let rowCount = Int(environment["ROWS"] ?? "") ?? 1_000_000
let rounds = max(1, Int(environment["ROUNDS"] ?? "") ?? 3)
let cutoff = rowCount / 2
let insertCount = Int(environment["INSERT_ROWS"] ?? "") ?? 100_000
/// What the insert lines write: day, name.
let feed: [(Int64, String)] = (1...insertCount).map { (Int64($0 % 1000), "imported \($0)") }
let dictionaries: [[String: Any]] = feed.map { ["day": $0.0, "name": $0.1] }
var failures: [String] = []

func model() -> NSManagedObjectModel {
    let day = NSAttributeDescription()
    day.name = "day"
    day.attributeType = .integer64AttributeType
    let name = NSAttributeDescription()
    name.name = "name"
    name.attributeType = .stringAttributeType
    let event = NSEntityDescription()
    event.name = "Event"
    event.properties = [day, name]
    let model = NSManagedObjectModel()
    model.entities = [event]
    return model
}

let clock = ContinuousClock()
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// The two requests, as an app writes them; each returns the count of rows written.
func batchDelete(_ context: NSManagedObjectContext) throws -> Int {
    let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Event")
    fetch.predicate = NSPredicate(format: "day < %d", cutoff)
    let request = NSBatchDeleteRequest(fetchRequest: fetch)
    request.resultType = .resultTypeCount
    return try context.performAndWait {
        ((try context.execute(request) as? NSBatchDeleteResult)?.result as? NSNumber)?.intValue ?? -1
    }
}

func batchUpdate(_ context: NSManagedObjectContext) throws -> Int {
    let request = NSBatchUpdateRequest(entityName: "Event")
    request.propertiesToUpdate = ["day": NSExpression(format: "day + 1")]
    request.resultType = .updatedObjectsCountResultType
    return try context.performAndWait {
        ((try context.execute(request) as? NSBatchUpdateResult)?.result as? NSNumber)?.intValue ?? -1
    }
}

func batchInsert(_ context: NSManagedObjectContext) throws -> Int {
    let request = NSBatchInsertRequest(entityName: "Event", objects: dictionaries)
    request.resultType = .count
    return try context.performAndWait {
        ((try context.execute(request) as? NSBatchInsertResult)?.result as? NSNumber)?.intValue ?? -1
    }
}

func newContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}

func report(_ title: String, raw: [Double], batch: [Double], rawLabel: String, batchLabel: String) {
    print(title)
    func padded(_ label: String) -> String { label + String(repeating: " ", count: max(1, 50 - label.count)) }
    print("  " + padded(rawLabel) + String(format: "%9.1f ms", median(raw)))
    print("  " + padded(batchLabel) + String(format: "%9.1f ms   %.2f× raw", median(batch), median(batch) / median(raw)))
}

// MARK: - SQLite

func execute(_ db: OpaquePointer, _ sql: String) {
    if sqlite3_exec(db, sql, nil, nil, nil) != SQLITE_OK {
        fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
    }
}

/// The store Core Data made, filled with the C API: events 1…ROWS, `day` = key × 7919 mod ROWS
/// (so that deleted rows are spread over the table).
func makeSQLiteStore(in folder: URL) throws -> URL {
    let url = folder.appendingPathComponent("Events.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
    let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
    try coordinator.remove(store)
    var db: OpaquePointer?
    guard sqlite3_open(url.path, &db) == SQLITE_OK, let db else { fatalError("open") }
    execute(db, "BEGIN")
    var insert: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO ZEVENT (Z_PK, Z_ENT, Z_OPT, ZDAY, ZNAME) VALUES (?, 1, 1, ?, ?)", -1, &insert, nil)
    for key in 1...rowCount {
        sqlite3_bind_int64(insert, 1, Int64(key))
        sqlite3_bind_int64(insert, 2, Int64((key &* 7_919) % rowCount))
        sqlite3_bind_text(insert, 3, "event \(key)", -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        guard sqlite3_step(insert) == SQLITE_DONE else { fatalError("insert") }
        sqlite3_reset(insert)
    }
    sqlite3_finalize(insert)
    execute(db, "UPDATE Z_PRIMARYKEY SET Z_MAX = \(rowCount) WHERE Z_ENT = 1")
    execute(db, "COMMIT")
    execute(db, "PRAGMA wal_checkpoint(TRUNCATE)")
    sqlite3_close(db)
    return url
}

/// The row count, the least `day` and the sum of `day` of a store file.
func sqliteFacts(_ url: URL) -> [Int] {
    var db: OpaquePointer?
    guard sqlite3_open(url.path, &db) == SQLITE_OK, let db else { return [] }
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT count(*), min(ZDAY), sum(ZDAY) FROM ZEVENT", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else { return [] }
    return (0..<3).map { Int(sqlite3_column_int64(statement, $0)) }
}

func copy(_ url: URL, in folder: URL, _ name: String) throws -> URL {
    let destination = folder.appendingPathComponent(name)
    try? FileManager.default.removeItem(at: destination)
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: destination.path + suffix) }
    try FileManager.default.copyItem(at: url, to: destination)
    return destination
}

/// Runs `sql` once in a transaction on a fresh connection to `url` (WAL, as the store's); its time.
func rawSQLite(_ url: URL, _ sql: String, _ argument: Int64?) -> Double {
    var db: OpaquePointer?
    sqlite3_open(url.path, &db)
    guard let db else { fatalError("open") }
    defer { sqlite3_close(db) }
    execute(db, "PRAGMA journal_mode = WAL")
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, sql, -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    if let argument { sqlite3_bind_int64(statement, 1, argument) }
    return milliseconds(
        clock.measure {
            execute(db, "BEGIN")
            guard sqlite3_step(statement) == SQLITE_DONE else { fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
            execute(db, "COMMIT")
        })
}

/// Runs `body` on a fresh coordinator of the store at `url`; its time.
func onSQLiteStore(_ url: URL, expecting count: Int, _ body: (NSManagedObjectContext) throws -> Int) throws -> Double {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
    _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
    defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
    let context = newContext(coordinator)
    var written = 0
    let time = try clock.measure { written = try body(context) }
    if written != count { failures.append("a request wrote \(written) rows, not \(count)") }
    return milliseconds(time)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("BatchBenchmarks-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let original = try makeSQLiteStore(in: folder)
let sumOfDays = (0..<rowCount).reduce(0, +)
print("SQLite: \(rowCount) rows, \(rounds) rounds (medians)")
do {
    var raw: [Double] = []
    var batch: [Double] = []
    for _ in 0..<rounds {
        let rawURL = try copy(original, in: folder, "raw.sqlite")
        raw.append(rawSQLite(rawURL, "DELETE FROM ZEVENT WHERE ZDAY < ?", Int64(cutoff)))
        let storeURL = try copy(original, in: folder, "batch.sqlite")
        batch.append(try onSQLiteStore(storeURL, expecting: rowCount - cutoff, batchDelete))
        let expected = [rowCount - cutoff, cutoff, sumOfDays - (0..<cutoff).reduce(0, +)]
        if sqliteFacts(rawURL) != expected || sqliteFacts(storeURL) != expected { failures.append("SQLite delete") }
    }
    report(
        "delete \(rowCount - cutoff) rows by predicate", raw: raw, batch: batch, rawLabel: "raw DELETE … WHERE ZDAY < ?",
        batchLabel: "NSBatchDeleteRequest")
}
do {
    var raw: [Double] = []
    var batch: [Double] = []
    let rawURL = try copy(original, in: folder, "raw.sqlite")
    let storeURL = try copy(original, in: folder, "batch.sqlite")
    for _ in 0..<rounds {
        raw.append(rawSQLite(rawURL, "UPDATE ZEVENT SET ZDAY = ZDAY + 1, Z_OPT = Z_OPT + 1", nil))
        batch.append(try onSQLiteStore(storeURL, expecting: rowCount, batchUpdate))
    }
    let expected = [rowCount, rounds, sumOfDays + rounds * rowCount]
    if sqliteFacts(rawURL) != expected || sqliteFacts(storeURL) != expected { failures.append("SQLite update") }
    report(
        "update \(rowCount) rows", raw: raw, batch: batch, rawLabel: "raw UPDATE … SET ZDAY = ZDAY + 1, Z_OPT = Z_OPT + 1",
        batchLabel: "NSBatchUpdateRequest")
}

do {
    let emptyURL = folder.appendingPathComponent("Empty.sqlite")
    let maker = NSPersistentStoreCoordinator(managedObjectModel: model())
    try maker.remove(try maker.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: emptyURL))
    var raw: [Double] = []
    var batch: [Double] = []
    let expected = [insertCount, 0, feed.reduce(0) { $0 + Int($1.0) }]
    for _ in 0..<rounds {
        let rawURL = try copy(emptyURL, in: folder, "raw.sqlite")
        var db: OpaquePointer?
        sqlite3_open(rawURL.path, &db)
        guard let db else { fatalError("open") }
        execute(db, "PRAGMA journal_mode = WAL")
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO ZEVENT (Z_PK, Z_ENT, Z_OPT, ZDAY, ZNAME) VALUES (?, 1, 1, ?, ?)", -1, &insert, nil)
        let time = clock.measure {
            execute(db, "BEGIN IMMEDIATE")
            for (index, (day, name)) in feed.enumerated() {
                sqlite3_bind_int64(insert, 1, Int64(index + 1))
                sqlite3_bind_int64(insert, 2, day)
                sqlite3_bind_text(insert, 3, name, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                guard sqlite3_step(insert) == SQLITE_DONE else { fatalError("insert") }
                sqlite3_reset(insert)
            }
            execute(db, "UPDATE Z_PRIMARYKEY SET Z_MAX = \(insertCount) WHERE Z_ENT = 1")
            execute(db, "COMMIT")
        }
        sqlite3_finalize(insert)
        sqlite3_close(db)
        raw.append(milliseconds(time))
        let storeURL = try copy(emptyURL, in: folder, "batch.sqlite")
        batch.append(try onSQLiteStore(storeURL, expecting: insertCount, batchInsert))
        if sqliteFacts(rawURL) != expected || sqliteFacts(storeURL) != expected { failures.append("SQLite insert") }
    }
    report(
        "insert \(insertCount) rows", raw: raw, batch: batch, rawLabel: "raw prepared INSERT per row, one transaction",
        batchLabel: "NSBatchInsertRequest")
    // What the request's input costs to read, whoever reads it: each dictionary's values cast to
    // their types (no store); the batch line against the raw line plus this.
    var reading: [Double] = []
    var total = 0
    for _ in 0..<rounds {
        reading.append(
            milliseconds(
                clock.measure {
                    for dictionary in dictionaries {
                        for (key, value) in dictionary {
                            if key == "day", let day = value as? Int64 { total &+= Int(day) }
                            if key == "name", let name = value as? String { total &+= name.utf8.count }
                        }
                    }
                }))
    }
    if total == 0 { failures.append("reading the dictionaries") }
    print(
        "  " + "reading the dictionaries alone".padding(toLength: 50, withPad: " ", startingAt: 0)
            + String(
                format: "%9.1f ms   batch %.2f× raw + this", median(reading), median(batch) / (median(raw) + median(reading))))
}

// MARK: - PostgreSQL

let logger = {
    var logger = Logger(label: "BatchBenchmarks")
    logger.logLevel = .critical
    return logger
}()

/// Runs `sql` on `connection` (with `argument` bound to $1 when given); the integers of its
/// first row, and its time.
@discardableResult
func rawPostgreSQL(_ connection: PostgresConnection, _ sql: String, _ argument: Int64? = nil) throws -> (facts: [Int], ms: Double)
{
    var facts: [Int] = []
    let time = try clock.measure {
        facts = try blocking {
            var binds = PostgresBindings()
            if let argument { binds.append(argument) }
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            var first: [Int] = []
            for try await row in rows where first.isEmpty {
                let cells = Array(row)
                first = try cells.map { Int(try $0.decode(Int64?.self) ?? -1) }
            }
            return first
        }
    }
    return (facts, milliseconds(time))
}

if let serverText = environment["OPENCOREDATA_POSTGRES_URL"], !serverText.isEmpty,
    var components = URLComponents(string: serverText), let host = components.host
{
    let schema = "batchbench_\(getpid())"
    components.queryItems =
        (components.queryItems ?? []).filter { $0.name != "schema" } + [URLQueryItem(name: "schema", value: schema)]
    guard let storeURL = components.url else { fatalError("store URL") }
    var configuration = PostgresConnection.Configuration(
        host: host, port: components.port ?? 5432, username: components.user ?? "postgres", password: components.password,
        database: components.path.split(separator: "/").first.map(String.init), tls: .disable)
    configuration.options.additionalStartupParameters = [("search_path", "\"\(schema)\"")]
    let config = configuration
    let connection = try blocking { try await PostgresConnection.connect(configuration: config, id: 1, logger: logger) }
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
    _ = try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: storeURL)
    let context = newContext(coordinator)
    /// The table as it was made: ROWS events, `day` spread as on SQLite.
    func refill() throws {
        try rawPostgreSQL(connection, "TRUNCATE \"ZEVENT\"")
        try rawPostgreSQL(
            connection,
            "INSERT INTO \"ZEVENT\" (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \"ZDAY\", \"ZNAME\") SELECT g, 1, 1, (g::bigint * 7919) % \(rowCount), "
                + "'event ' || g FROM generate_series(1, \(rowCount)) AS g")
        try rawPostgreSQL(connection, "VACUUM ANALYZE \"ZEVENT\"")
    }
    let factsSQL = "SELECT count(*), min(\"ZDAY\"), sum(\"ZDAY\")::bigint FROM \"ZEVENT\""
    func timedBatch(expecting count: Int, _ body: (NSManagedObjectContext) throws -> Int) throws -> Double {
        var written = 0
        let time = try clock.measure { written = try body(context) }
        if written != count { failures.append("a PostgreSQL request wrote \(written) rows, not \(count)") }
        return milliseconds(time)
    }
    print("PostgreSQL: \(rowCount) rows, \(rounds) rounds (medians)")
    var raw: [Double] = []
    var batch: [Double] = []
    let deleted = [rowCount - cutoff, cutoff, sumOfDays - (0..<cutoff).reduce(0, +)]
    for _ in 0..<rounds {
        try refill()
        raw.append(try rawPostgreSQL(connection, "DELETE FROM \"ZEVENT\" WHERE \"ZDAY\" < $1", Int64(cutoff)).ms)
        if try rawPostgreSQL(connection, factsSQL).facts != deleted { failures.append("PostgreSQL raw delete") }
        try refill()
        batch.append(try timedBatch(expecting: rowCount - cutoff, batchDelete))
        if try rawPostgreSQL(connection, factsSQL).facts != deleted { failures.append("PostgreSQL batch delete") }
    }
    report(
        "delete \(rowCount - cutoff) rows by predicate", raw: raw, batch: batch,
        rawLabel: "postgres-nio DELETE … WHERE \"ZDAY\" < $1", batchLabel: "NSBatchDeleteRequest")
    raw = []
    batch = []
    try refill()
    for round in 1...rounds {
        raw.append(try rawPostgreSQL(connection, "UPDATE \"ZEVENT\" SET \"ZDAY\" = \"ZDAY\" + 1, \"Z_OPT\" = \"Z_OPT\" + 1").ms)
        batch.append(try timedBatch(expecting: rowCount, batchUpdate))
        if try rawPostgreSQL(connection, factsSQL).facts != [rowCount, 2 * round, sumOfDays + 2 * round * rowCount] {
            failures.append("PostgreSQL update")
        }
    }
    report(
        "update \(rowCount) rows", raw: raw, batch: batch, rawLabel: "postgres-nio UPDATE … \"ZDAY\" + 1, \"Z_OPT\" + 1",
        batchLabel: "NSBatchUpdateRequest")
    raw = []
    batch = []
    let inserted = [insertCount, 0, feed.reduce(0) { $0 + Int($1.0) }]
    let rowsPerStatement = 256
    for _ in 0..<rounds {
        try rawPostgreSQL(connection, "TRUNCATE \"ZEVENT\"")
        try rawPostgreSQL(connection, "VACUUM ANALYZE \"ZEVENT\"")
        let time = try clock.measure {
            try blocking {
                _ = try await connection.query("BEGIN", logger: logger)
                var start = 0
                while start < insertCount {
                    let end = min(start + rowsPerStatement, insertCount)
                    var binds = PostgresBindings()
                    var tuples: [String] = []
                    for index in start..<end {
                        let base = (index - start) * 5
                        tuples.append("($\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4), $\(base + 5))")
                        binds.append(Int64(index + 1))
                        binds.append(Int64(1))
                        binds.append(Int64(1))
                        binds.append(feed[index].0)
                        binds.append(feed[index].1)
                    }
                    let sql =
                        "INSERT INTO \"ZEVENT\" (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \"ZDAY\", \"ZNAME\") VALUES "
                        + tuples.joined(separator: ", ")
                    _ = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
                    start = end
                }
                _ = try await connection.query("COMMIT", logger: logger)
            }
        }
        raw.append(milliseconds(time))
        if try rawPostgreSQL(connection, factsSQL).facts != inserted { failures.append("PostgreSQL raw insert") }
        try rawPostgreSQL(connection, "TRUNCATE \"ZEVENT\"")
        try rawPostgreSQL(connection, "VACUUM ANALYZE \"ZEVENT\"")
        batch.append(try timedBatch(expecting: insertCount, batchInsert))
        if try rawPostgreSQL(connection, factsSQL).facts != inserted { failures.append("PostgreSQL batch insert") }
    }
    report(
        "insert \(insertCount) rows", raw: raw, batch: batch, rawLabel: "postgres-nio INSERT … VALUES, 256 rows each",
        batchLabel: "NSBatchInsertRequest")
    for store in coordinator.persistentStores { try coordinator.remove(store) }
    try rawPostgreSQL(connection, "DROP SCHEMA \"\(schema)\" CASCADE")
    try blocking { try await connection.close() }
} else {
    print("PostgreSQL: set OPENCOREDATA_POSTGRES_URL to measure the PostgreSQL store; not measured")
}

print(String(format: "peak RSS %.0f MB", peakMegabytes()))
if !failures.isEmpty {
    print("FAILED: \(failures.joined(separator: "; "))")
    exit(1)
}
