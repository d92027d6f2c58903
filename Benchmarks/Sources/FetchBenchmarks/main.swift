// Prints figures for fetching from the in-memory and SQLite stores: a fetch request with a
// predicate and two sort descriptors over 100,000 objects, against the raw SQLite C API running the same query
// on the same rows (an in-memory database) and against a hand-written Swift filter and sort, all
// in the same run. Also the cost of merging unsaved changes into a fetch. Nothing here is a test.
//
//     cd Benchmarks && swift run -c release FetchBenchmarks [results.json]
//
// OBJECTS=<n> in the environment changes the number of objects (default 100,000).
//
// The table goes to stdout; the last line of stdout is the same results as one JSON object, also
// written to the file named by the first argument, if any.

import RawSQLite
import CoreData

let clock = ContinuousClock()
let runs = 5
let objectCount = Int(ProcessInfo.processInfo.environment["OBJECTS"] ?? "") ?? 100_000
let minimumSalary: Int64 = 100_000

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15 }
}

/// The best (shortest) of `runs` timings of `body`, and what it returned in the last run.
func best<T>(_ body: () throws -> T) rethrows -> (milliseconds: Double, result: T) {
    var fastest = Double.infinity
    var result: T?
    for _ in 0..<runs {
        var value: T?
        let elapsed = try clock.measure { value = try body() }
        fastest = min(fastest, elapsed.milliseconds)
        result = value
    }
    guard let result else { fatalError("no runs") }
    return (fastest, result)
}

// MARK: - Data (deterministic)

struct Person {
    let id: Int64
    let lastName: String
    let salary: Int64
}

var seed: UInt64 = 42
func next() -> UInt64 {
    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return seed >> 33
}
let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "we", "zo", "an", "el", "or", "us", "ix"]
let people: [Person] = (0..<objectCount).map { index in
    let name = (0..<3).map { _ in syllables[Int(next() % UInt64(syllables.count))] }.joined().capitalized
    return Person(id: Int64(index + 1), lastName: name, salary: 20_000 + Int64(next() % 180_000))
}

// MARK: - Raw SQLite C API

/// Runs the query with the raw C API on a database: `:memory:` (filled here) or a store file our
/// SQLite store wrote (same table and column names, as Apple's layout gives them).
func sqliteRows(path: String = ":memory:") -> [Person] {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK, let db else { fatalError("sqlite3_open") }
    defer { sqlite3_close(db) }
    if path == ":memory:" {
        sqlite3_exec(db, "CREATE TABLE ZEMPLOYEE (Z_PK INTEGER PRIMARY KEY, ZLASTNAME VARCHAR, ZSALARY INTEGER)", nil, nil, nil)
        sqlite3_exec(db, "BEGIN", nil, nil, nil)
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO ZEMPLOYEE VALUES (?, ?, ?)", -1, &insert, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for person in people {
            sqlite3_bind_int64(insert, 1, person.id)
            sqlite3_bind_text(insert, 2, person.lastName, -1, transient)
            sqlite3_bind_int64(insert, 3, person.salary)
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
    }
    var query: OpaquePointer?
    sqlite3_prepare_v2(
        db, "SELECT Z_PK, ZLASTNAME, ZSALARY FROM ZEMPLOYEE WHERE ZSALARY > ? ORDER BY ZLASTNAME, ZSALARY DESC", -1, &query, nil)
    defer { sqlite3_finalize(query) }
    return best { () -> [Person] in
        sqlite3_reset(query)
        sqlite3_bind_int64(query, 1, minimumSalary)
        var rows: [Person] = []
        while sqlite3_step(query) == SQLITE_ROW {
            let name = sqlite3_column_text(query, 1).map { String(cString: $0) } ?? ""
            rows.append(Person(id: sqlite3_column_int64(query, 0), lastName: name, salary: sqlite3_column_int64(query, 2)))
        }
        return rows
    }.result
}

// MARK: - OpenCoreData

func makeModel() -> NSManagedObjectModel {
    let lastName = NSAttributeDescription()
    lastName.name = "lastName"
    lastName.attributeType = .stringAttributeType
    let salary = NSAttributeDescription()
    salary.name = "salary"
    salary.attributeType = .integer64AttributeType
    let employee = NSEntityDescription()
    employee.name = "Employee"
    employee.properties = [lastName, salary]
    let model = NSManagedObjectModel()
    model.entities = [employee]
    return model
}

let model = makeModel()
let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
do {
    try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
} catch {
    fatalError("\(error)")
}
func newContext() -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}
guard let employeeEntity = model.entitiesByName["Employee"] else { fatalError("model") }

print("Fetch benchmarks (in-memory and SQLite stores) — \(ProcessInfo.processInfo.activeProcessorCount) cores, best of \(runs) runs, \(objectCount) objects")
print("")

let insertStart = clock.now
let loader = newContext()
for person in people {
    let object = NSManagedObject(entity: employeeEntity, insertInto: loader)
    object.setValue(person.lastName, forKey: "lastName")
    object.setValue(person.salary, forKey: "salary")
}
do { try loader.save() } catch { fatalError("\(error)") }
let insertMilliseconds = (clock.now - insertStart).milliseconds
FileHandle.standardError.write("inserted and saved in \(Int(insertMilliseconds)) ms\n".data(using: .utf8) ?? Data())
loader.reset()

func request() -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
    request.predicate = NSPredicate(format: "salary > %@", NSNumber(value: minimumSalary))
    request.sortDescriptors = [NSSortDescriptor(key: "lastName", ascending: true), NSSortDescriptor(key: "salary", ascending: false)]
    return request
}

let sqlite = best { sqliteRows().count }
let swiftLoop = best { () -> Int in
    people.filter { $0.salary > minimumSalary }
        .sorted { $0.lastName != $1.lastName ? $0.lastName < $1.lastName : $0.salary > $1.salary }.count
}
let fetchFaults = try best { () -> Int in try newContext().fetch(request()).count }
let fetchAndRead = try best { () -> Int in
    let context = newContext()  // objects hold their context weakly: keep it
    let objects = try context.fetch(request())
    var total: Int64 = 0
    for object in objects { total &+= (object.value(forKey: "salary") as? Int64) ?? 0 }
    return objects.count
}
let count = try best { () -> Int in try newContext().count(for: request()) }

// Pending changes: 1,000 saved objects changed (half now match, half no longer do) and 1,000
// new ones, then the same fetch.
let pendingContext = newContext()
let changed = try pendingContext.fetch({ () -> NSFetchRequest<NSManagedObject> in
    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
    request.fetchLimit = 1_000
    return request
}())
for (index, object) in changed.enumerated() { object.setValue(index.isMultiple(of: 2) ? 150_000 : 1_000, forKey: "salary") }
for index in 0..<1_000 {
    let object = NSManagedObject(entity: employeeEntity, insertInto: pendingContext)
    object.setValue("Pending\(index)", forKey: "lastName")
    object.setValue(Int64(120_000), forKey: "salary")
}
let withPending = try best { () -> Int in try pendingContext.fetch(request()).count }
let sameContextClean = newContext()
_ = try sameContextClean.fetch(request())
let withoutPending = try best { () -> Int in try sameContextClean.fetch(request()).count }

// The same objects in a store file written by NSSQLiteStoreType, and the same request on it.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("FetchBenchmarks-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }
let fileURL = folder.appendingPathComponent("Employees.sqlite")
let fileCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
do {
    try fileCoordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: fileURL, options: nil)
} catch {
    fatalError("\(error)")
}
func newFileContext() -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = fileCoordinator
    return context
}
let fileSaveStart = clock.now
let fileLoader = newFileContext()
for person in people {
    let object = NSManagedObject(entity: employeeEntity, insertInto: fileLoader)
    object.setValue(person.lastName, forKey: "lastName")
    object.setValue(person.salary, forKey: "salary")
}
do { try fileLoader.save() } catch { fatalError("\(error)") }
let fileSaveMilliseconds = (clock.now - fileSaveStart).milliseconds
fileLoader.reset()
let sqliteFile = best { sqliteRows(path: fileURL.path).count }
let fileFetch = try best { () -> Int in try newFileContext().fetch(request()).count }
let fileCount = try best { () -> Int in try newFileContext().count(for: request()) }

let rows: [(String, Double, Int)] = [
    ("raw SQLite C API: SELECT … WHERE … ORDER BY …, rows read into structs", sqlite.milliseconds, sqlite.result),
    ("Swift: filter + sort an array of structs", swiftLoop.milliseconds, swiftLoop.result),
    ("fetch(request) → faults (fresh context)", fetchFaults.milliseconds, fetchFaults.result),
    ("fetch(request), then read salary of each object", fetchAndRead.milliseconds, fetchAndRead.result),
    ("count(for: request)", count.milliseconds, count.result),
    ("fetch in a context with 2,000 pending changes", withPending.milliseconds, withPending.result),
    ("the same fetch, same-sized context, nothing pending", withoutPending.milliseconds, withoutPending.result),
    ("raw SQLite C API on the store file NSSQLiteStoreType wrote", sqliteFile.milliseconds, sqliteFile.result),
    ("NSSQLiteStoreType: fetch(request) → faults (fresh context)", fileFetch.milliseconds, fileFetch.result),
    ("NSSQLiteStoreType: count(for: request)", fileCount.milliseconds, fileCount.result),
]
print("Request: Employee WHERE salary > \(minimumSalary) ORDER BY lastName, salary DESC")
print("      ms   × SQLite  results  what")
for (label, milliseconds, results) in rows {
    let ratio = milliseconds / sqlite.milliseconds
    print(String(format: "%8.1f  %8.2f  %7d  %@", milliseconds, ratio, results, label))
}
print(String(format: "\nInserting and saving %d objects: in memory %.0f ms, SQLite file %.0f ms (one run each)", objectCount, insertMilliseconds, fileSaveMilliseconds))

let json: [String: Any] = [
    "objects": objectCount, "runs": runs, "insertAndSaveMilliseconds": insertMilliseconds,
    "sqliteInsertAndSaveMilliseconds": fileSaveMilliseconds,
    "results": rows.map { ["what": $0.0, "milliseconds": $0.1, "ratioToSQLite": $0.1 / sqlite.milliseconds, "results": $0.2] },
]
if let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), let text = String(data: data, encoding: .utf8) {
    print(text)
    if CommandLine.arguments.count > 1 { try? data.write(to: URL(fileURLWithPath: CommandLine.arguments[1])) }
}
