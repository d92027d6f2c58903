// Prints figures for lightweight migration of an NSSQLiteStoreType store in place with
// NSMigrationManager, against its floor: the same rows copied into a new table with the raw
// SQLite C API. Nothing here is a test.
//
//     cd Benchmarks && swift build -c release --product MigrationBenchmarks && .build/release/MigrationBenchmarks
//
// The store holds one entity, `Item`, written with model version 1: title (String), quantity
// (Integer 16), price (Double), created (Date), flag (Boolean), note (String). Version 2
// renames title to name (renaming identifier), makes quantity Integer 64, drops note and adds
// status (Integer 32, required, default 1). The file is made once per row count: an empty store
// created by OpenCoreData with version 1, then its rows inserted with the raw C API in Apple's
// layout (version 1 opens it; this is checked). Each measured run gets a fresh copy of that file
// and runs in a child process of its own (this program with `--migrate` or `--raw-copy`), so its
// peak memory (VmHWM, which starts afresh at exec) is the run's alone, not the building's.
//
// The floor (`--raw-copy`): open the file as the store opens its own (SQLITE_OPEN_NOMUTEX,
// extended result codes, 5 s busy timeout), and in one transaction create a table with the
// columns of ZITEM and copy every row into it with a prepared INSERT whose values are read with
// sqlite3_column_* from a SELECT of the old table, then close (which checkpoints the WAL, as
// the migration's close does); the goal is 3× it. A second line (`--sql-copy`) copies the same
// columns with one `INSERT INTO … SELECT` run inside SQLite, as the migration itself does: the
// least any SQL migration can take. The migration also renames, drops, creates indexes and
// rewrites Z_PRIMARYKEY and the metadata.
//
// ROWS=<n> sets the large row count (default 1,000,000); the small one is a tenth of it.
// ROUNDS=<n> runs each line n times, the sides taking turns (default 3); the best time and the
// highest peak are printed. The last line of stdout is the results as one JSON object.

import BenchmarkSupport
import CoreData
import RawSQLite

#if canImport(Glibc)
    import Glibc
#endif

let environment = ProcessInfo.processInfo.environment
let largeRows = Int(environment["ROWS"] ?? "") ?? 1_000_000
let rounds = max(1, Int(environment["ROUNDS"] ?? "") ?? 3)

// MARK: - Models

func model(version: Int) -> NSManagedObjectModel {
    let item = NSEntityDescription()
    item.name = "Item"
    var properties = [
        attribute("price", .doubleAttributeType), attribute("created", .dateAttributeType),
        attribute("flag", .booleanAttributeType),
    ]
    if version == 1 {
        properties += [
            attribute("title", .stringAttributeType), attribute("quantity", .integer16AttributeType),
            attribute("note", .stringAttributeType),
        ]
    } else {
        let name = attribute("name", .stringAttributeType)
        name.renamingIdentifier = "title"
        let status = attribute("status", .integer32AttributeType)
        status.isOptional = false
        status.defaultValue = 1
        properties += [name, attribute("quantity", .integer64AttributeType), status]
    }
    item.properties = properties
    let model = NSManagedObjectModel()
    model.entities = [item]
    return model
}

/// Adds the store with `model` and counts its items (nil when it does not open).
func count(_ url: URL, model: NSManagedObjectModel) -> Int? {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    guard
        let store = try? coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
    else { return nil }
    defer { try? coordinator.remove(store) }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context.performAndWait { try? context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) }
}

// MARK: - Raw SQLite

func openRaw(_ path: String) -> OpaquePointer {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
        fatalError("sqlite3_open \(path)")
    }
    sqlite3_extended_result_codes(db, 1)
    sqlite3_busy_timeout(db, 5_000)
    return db
}

func execute(_ db: OpaquePointer, _ sql: String) {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
}

func prepare(_ db: OpaquePointer, _ sql: String) -> OpaquePointer {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
        fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
    }
    return statement
}

/// Makes a version-1 store of `rows` items at `url`: the store (schema, Z_PRIMARYKEY, metadata)
/// by OpenCoreData, the rows with the raw C API in one transaction.
func makeStore(at url: URL, rows: Int) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    guard count(url, model: model(version: 1)) == 0 else { fatalError("could not create \(url.path)") }
    let db = openRaw(url.path)
    defer { sqlite3_close(db) }
    var entity: Int64 = 0
    let query = prepare(db, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")
    if sqlite3_step(query) == SQLITE_ROW { entity = sqlite3_column_int64(query, 0) }
    sqlite3_finalize(query)
    execute(db, "BEGIN")
    let insert = prepare(
        db,
        "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZQUANTITY, ZPRICE, ZCREATED, ZFLAG, ZNOTE) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)"
    )
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    for index in 1...rows {
        sqlite3_reset(insert)
        sqlite3_bind_int64(insert, 1, Int64(index))
        sqlite3_bind_int64(insert, 2, entity)
        sqlite3_bind_text(insert, 3, "Item \(index) \(next() % 100_000)", -1, transient)
        sqlite3_bind_int64(insert, 4, Int64(next() % 30_000))
        sqlite3_bind_double(insert, 5, Double(next() % 1_000_000) / 100)
        sqlite3_bind_double(insert, 6, Double(next() % 800_000_000))
        sqlite3_bind_int64(insert, 7, Int64(next() % 2))
        if index % 4 == 0 {
            sqlite3_bind_null(insert, 8)
        } else {
            sqlite3_bind_text(insert, 8, "note \(next() % 1_000_000)", -1, transient)
        }
        guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
    }
    sqlite3_finalize(insert)
    execute(db, "UPDATE Z_PRIMARYKEY SET Z_MAX = \(rows) WHERE Z_ENT = \(entity)")
    execute(db, "COMMIT")
    execute(db, "PRAGMA wal_checkpoint(TRUNCATE)")
}

// MARK: - Child runs

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15 }
}

/// `--migrate PATH`: migrates the store in place to version 2; `--raw-copy PATH`: the floor;
/// `--sql-copy PATH`: the copy in one SQL statement.
/// Prints `milliseconds peakMB baselineMB rows`, the rows counted after the measurement.
if CommandLine.arguments.count == 3, ["--migrate", "--raw-copy", "--sql-copy"].contains(CommandLine.arguments[1]) {
    let url = URL(fileURLWithPath: CommandLine.arguments[2])
    let clock = ContinuousClock()
    var rows = -1
    let elapsed: Duration
    let baseline: Double
    if CommandLine.arguments[1] == "--migrate" {
        let source = model(version: 1), destination = model(version: 2)
        guard let mapping = try? NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination) else {
            fatalError("no inferred mapping")
        }
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        baseline = peakMegabytes()
        elapsed = clock.measure {
            do {
                try manager.migrateStore(
                    from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: url,
                    destinationType: NSSQLiteStoreType, destinationOptions: nil)
            } catch {
                fatalError("migration failed: \(error)")
            }
        }
        let peak = peakMegabytes()
        rows = count(url, model: destination) ?? -1
        print(String(format: "%.1f %.1f %.1f %d", elapsed.milliseconds, peak, baseline, rows))
    } else {
        let columns = "Z_PK, Z_ENT, Z_OPT, ZFLAG, ZQUANTITY, ZCREATED, ZPRICE, ZNOTE, ZTITLE"
        let create =
            "CREATE TABLE ZITEM_COPY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFLAG INTEGER, "
            + "ZQUANTITY INTEGER, ZCREATED TIMESTAMP, ZPRICE FLOAT, ZNOTE VARCHAR, ZTITLE VARCHAR)"
        let inSQL = CommandLine.arguments[1] == "--sql-copy"
        baseline = peakMegabytes()
        elapsed = clock.measure {
            let db = openRaw(url.path)
            execute(db, "BEGIN IMMEDIATE")
            execute(db, create)
            if inSQL {
                execute(db, "INSERT INTO ZITEM_COPY (\(columns)) SELECT \(columns) FROM ZITEM")
                execute(db, "COMMIT")
                sqlite3_close(db)
                return
            }

            let select = prepare(db, "SELECT \(columns) FROM ZITEM")
            let insert = prepare(
                db,
                "INSERT INTO ZITEM_COPY (Z_PK, Z_ENT, Z_OPT, ZFLAG, ZQUANTITY, ZCREATED, ZPRICE, ZNOTE, ZTITLE) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            )
            while sqlite3_step(select) == SQLITE_ROW {
                sqlite3_reset(insert)
                for column in Int32(0)..<5 { sqlite3_bind_int64(insert, column + 1, sqlite3_column_int64(select, column)) }
                sqlite3_bind_double(insert, 6, sqlite3_column_double(select, 5))
                sqlite3_bind_double(insert, 7, sqlite3_column_double(select, 6))
                for column in Int32(7)..<9 {
                    if let text = sqlite3_column_text(select, column) {
                        sqlite3_bind_text(insert, column + 1, text, sqlite3_column_bytes(select, column), nil)
                    } else {
                        sqlite3_bind_null(insert, column + 1)
                    }
                }
                guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
            }
            sqlite3_finalize(select)
            sqlite3_finalize(insert)
            execute(db, "COMMIT")
            sqlite3_close(db)
        }
        let peak = peakMegabytes()
        let db = openRaw(url.path)
        let query = prepare(db, "SELECT count(*) FROM ZITEM_COPY")
        if sqlite3_step(query) == SQLITE_ROW { rows = Int(sqlite3_column_int64(query, 0)) }
        sqlite3_finalize(query)
        sqlite3_close(db)
        print(String(format: "%.1f %.1f %.1f %d", elapsed.milliseconds, peak, baseline, rows))
    }
    exit(0)
}

struct Run {
    var milliseconds = Double.infinity
    var peak = 0.0
    var baseline = 0.0
    var rows = 0
}

/// Runs this program with `mode` on a fresh copy of `store` and reads its figures.
func child(_ mode: String, store: URL, into run: inout Run) {
    let copy = store.deletingLastPathComponent().appendingPathComponent("Run.sqlite")
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy.path + suffix) }
    do { try FileManager.default.copyItem(at: store, to: copy) } catch { fatalError("\(error)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = [mode, copy.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { fatalError("\(error)") }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let fields = output.split(whereSeparator: \.isWhitespace).map(String.init)
    guard fields.count == 4, let ms = Double(fields[0]), let peak = Double(fields[1]), let baseline = Double(fields[2]),
        let rows = Int(fields[3])
    else { fatalError("\(mode): \(output)") }
    run.milliseconds = min(run.milliseconds, ms)
    run.peak = max(run.peak, peak)
    run.baseline = max(run.baseline, baseline)
    run.rows = rows
}

// MARK: - Main

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("migration-benchmarks-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

var results: [String: Double] = [:]
print("Lightweight migration in place (NSMigrationManager) against copies of the same rows; best of \(rounds), highest peak")
print(
    "rows       | migration ms | raw copy ms | × raw copy (goal ≤ 3×) | SQL copy ms | × SQL copy | peak MB (Δ over start): "
        + "migration / raw copy / SQL copy")
for rows in [largeRows / 10, largeRows] {
    let store = folder.appendingPathComponent("Store\(rows).sqlite")
    makeStore(at: store, rows: rows)
    guard count(store, model: model(version: 1)) == rows else { fatalError("version 1 does not open the store of \(rows) rows") }
    var migration = Run(), raw = Run(), sql = Run()
    for _ in 0..<rounds {
        child("--migrate", store: store, into: &migration)
        child("--raw-copy", store: store, into: &raw)
        child("--sql-copy", store: store, into: &sql)
    }
    guard migration.rows == rows, raw.rows == rows, sql.rows == rows else {
        fatalError("rows: migrated \(migration.rows), copied \(raw.rows) and \(sql.rows), of \(rows)")
    }
    let ratio = migration.milliseconds / raw.milliseconds
    let sqlRatio = migration.milliseconds / sql.milliseconds
    func memory(_ run: Run) -> String { String(format: "%.1f (%+.1f)", run.peak, run.peak - run.baseline) }
    print(
        String(format: "%-10d | %12.0f | %11.0f | ", rows, migration.milliseconds, raw.milliseconds)
            + String(format: "%8.2f× ", ratio) + (ratio <= 3 ? "✓" : "✗")
            + String(format: "            | %11.0f | %9.2f× | ", sql.milliseconds, sqlRatio)
            + "\(memory(migration)) / \(memory(raw)) / \(memory(sql))")
    for (name, run) in [("migration", migration), ("raw_copy", raw), ("sql_copy", sql)] {
        results["\(name)_ms_\(rows)"] = run.milliseconds
        results["\(name)_peak_mb_\(rows)"] = run.peak
        results["\(name)_delta_mb_\(rows)"] = run.peak - run.baseline
    }
    results["ratio_raw_copy_\(rows)"] = ratio
    results["ratio_sql_copy_\(rows)"] = sqlRatio
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
}
let json = results.keys.sorted().map { "\"\($0)\": \(String(format: "%.2f", results[$0] ?? 0))" }.joined(separator: ", ")
print("{\(json)}")
