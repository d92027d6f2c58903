// Prints figures for `NSBatchDeleteRequest` on an NSSQLiteStoreType store against its floor: the
// same rows deleted by the raw SQLite C API with one `DELETE … WHERE` of the same predicate. Nothing
// here is a test.
//
//     cd Benchmarks && swift build -c release --product BatchBenchmarks && .build/release/BatchBenchmarks
//
// One entity, `Event`: day (Integer 64), name (String). The store is made by Core Data, then filled
// with ROWS rows (default 1,000,000) by the C API in one transaction; each round copies that file
// and deletes the events with `day < ROWS / 2` (half of them), once with the raw `DELETE` and once
// with the batch request (result type count), lines taking turns. ROUNDS (default 3) rounds;
// medians are printed, and the peak RSS. The run checks the rows left and exits non-zero if they
// are not the ones expected.

import CoreData
import RawSQLite

#if canImport(Glibc)
    import Glibc
#endif

let environment = ProcessInfo.processInfo.environment
let rowCount = Int(environment["ROWS"] ?? "") ?? 1_000_000
let rounds = max(1, Int(environment["ROUNDS"] ?? "") ?? 3)
let cutoff = rowCount / 2

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

func execute(_ db: OpaquePointer, _ sql: String) {
    if sqlite3_exec(db, sql, nil, nil, nil) != SQLITE_OK {
        fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
    }
}

/// The store Core Data made, filled with the C API: events 1…ROWS, `day` = its key - 1 (shuffled
/// by a fixed stride so that deleted rows are spread over the table).
func makeStore(in folder: URL) throws -> URL {
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

func left(_ url: URL) -> (Int, Int) {
    var db: OpaquePointer?
    guard sqlite3_open(url.path, &db) == SQLITE_OK, let db else { return (-1, -1) }
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT count(*), min(ZDAY) FROM ZEVENT", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else { return (-1, -1) }
    return (Int(sqlite3_column_int64(statement, 0)), Int(sqlite3_column_int64(statement, 1)))
}

let clock = ContinuousClock()
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

func copy(_ url: URL, in folder: URL, _ name: String) throws -> URL {
    let destination = folder.appendingPathComponent(name)
    try? FileManager.default.removeItem(at: destination)
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: destination.path + suffix) }
    try FileManager.default.copyItem(at: url, to: destination)
    return destination
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("BatchBenchmarks-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let original = try makeStore(in: folder)
var raw: [Double] = []
var batch: [Double] = []
var failed = false
for _ in 0..<rounds {
    let rawURL = try copy(original, in: folder, "raw.sqlite")
    var db: OpaquePointer?
    sqlite3_open(rawURL.path, &db)
    execute(db!, "PRAGMA journal_mode = WAL")
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "DELETE FROM ZEVENT WHERE ZDAY < ?", -1, &statement, nil)
    sqlite3_bind_int64(statement, 1, Int64(cutoff))
    let rawTime = clock.measure {
        execute(db!, "BEGIN")
        _ = sqlite3_step(statement)
        execute(db!, "COMMIT")
    }
    sqlite3_finalize(statement)
    sqlite3_close(db)
    raw.append(milliseconds(rawTime))
    if left(rawURL) != (rowCount - cutoff, cutoff) { failed = true }

    let storeURL = try copy(original, in: folder, "batch.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
    _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Event")
    fetch.predicate = NSPredicate(format: "day < %d", cutoff)
    let request = NSBatchDeleteRequest(fetchRequest: fetch)
    request.resultType = .resultTypeCount
    var deleted = 0
    let batchTime = try clock.measure {
        deleted = try context.performAndWait { ((try context.execute(request) as? NSBatchDeleteResult)?.result as? NSNumber)?.intValue ?? -1 }
    }
    batch.append(milliseconds(batchTime))
    for store in coordinator.persistentStores { try coordinator.remove(store) }
    if deleted != cutoff || left(storeURL) != (rowCount - cutoff, cutoff) { failed = true }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
print("rows \(rowCount), deleting \(cutoff), \(rounds) rounds (medians)")
print(String(format: "raw DELETE … WHERE ZDAY < ?   %9.1f ms", median(raw)))
print(String(format: "NSBatchDeleteRequest           %9.1f ms   %.2f× raw", median(batch), median(batch) / median(raw)))
print("peak RSS \(usage.ru_maxrss / 1024) MB")
if failed {
    print("FAILED: the rows left are not the ones expected")
    exit(1)
}
