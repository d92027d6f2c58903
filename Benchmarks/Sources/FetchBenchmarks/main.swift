// Prints figures for fetching from an NSSQLiteStoreType store of 100,000 employees in 100
// departments, each against the raw SQLite C API doing the same work on the same file in the same
// run; the peak memory of iterating 10^6 rows with a fetchBatchSize and the heap taken by each
// fetched, unfired fault (each in a child process, so that the figure is that child's alone);
// and, where valgrind is installed, the instructions per row of each side, counted by callgrind
// in a child run of 10,000 employees. Where a goal is set against what Apple's API makes any
// implementation add, a floor is measured too: the raw read plus only that (see "Floors").
// Nothing here is a test.
//
//     cd Benchmarks && swift run -c release FetchBenchmarks [--instructions] [results.json]
//
// The raw connection is opened like the store's own (Sources/OpenSQLiteStore/SQLiteConnection):
// SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX (multi-thread mode: no mutex per call), extended
// result codes and a 5 s busy timeout; the store sets no pragma that affects reads (cache_size
// and mmap_size are SQLite's defaults on both), and journal_mode = WAL and auto_vacuum = 2 are
// properties of the file, which both sides read.
//
// OBJECTS=<n> changes the number of employees (default 100,000); BATCH_OBJECTS=<n> the rows of
// the batch iteration (default 1,000,000; 0 skips it); ONLY=<substring> runs only the lines whose
// description contains it; INSTRUCTIONS=0 skips the callgrind run (which runs whenever valgrind
// is on PATH, or with --instructions), INSTRUCTIONS_OBJECTS=<n> sets its employees (default
// 10,000) and CALLGRIND_DIR=<folder> keeps its dump files there (one per measured body, named
// by the line's number and side, for callgrind_annotate). The table goes to stdout; the last
// line of stdout is the same results as one JSON object, also written to the file named by the
// first argument that is not an option.

import BenchmarkSupport
import CoreData
import Probes
import RawSQLite

#if canImport(Glibc)
    import Glibc
#endif

let clock = ContinuousClock()
let environment = ProcessInfo.processInfo.environment
/// Whether this process is the callgrind child (`--instructions-child`, under valgrind), which
/// runs each measured body once uninstrumented, then once counted, and times nothing.
let countingInstructions = CommandLine.arguments.dropFirst().first == "--instructions-child" && probes_on_valgrind() != 0
let runs = countingInstructions ? 1 : 5
let objectCount = Int(environment["OBJECTS"] ?? "") ?? 100_000
let batchObjectCount = Int(environment["BATCH_OBJECTS"] ?? "") ?? 1_000_000
let departmentCount = 100
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

// MARK: - Model

let model = makeCompanyModel()

func openStore(_ url: URL) -> NSPersistentStoreCoordinator {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    do {
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
    } catch {
        fatalError("\(error)")
    }
    return coordinator
}

func newContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}

// MARK: - Raw SQLite C API

/// A connection opened as the store opens its own (see the header comment): multi-thread mode,
/// extended result codes, a 5 s busy timeout, no pragma of its own.
func openRaw(_ path: String) -> OpaquePointer {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
        fatalError("sqlite3_open")
    }
    sqlite3_extended_result_codes(db, 1)
    sqlite3_busy_timeout(db, 5_000)
    return db
}

/// A prepared statement run by `body` (reset before each run).
final class Raw {
    let statement: OpaquePointer
    init(_ db: OpaquePointer, _ sql: String) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            fatalError(String(cString: sqlite3_errmsg(db)))
        }
        self.statement = statement
    }
    deinit { sqlite3_finalize(statement) }
    func text(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: text)
    }
    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
    func rows(_ bind: (OpaquePointer) -> Void = { _ in }, _ row: () -> Void) {
        sqlite3_reset(statement)
        bind(statement)
        while sqlite3_step(statement) == SQLITE_ROW { row() }
    }
}

/// A row of the raw side.
struct Employee {
    let id: Int64
    let firstName: String
    let lastName: String
    let salary: Int64
    let age: Int64
    let hired: Date
    let department: Int64
}

// MARK: - The 100,000-employee store

var values = EmployeeValues()

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("FetchBenchmarks-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }

/// With `--batch-iteration <store>`: iterate every employee of the store with a fetchBatchSize,
/// reading the salary of each, and print `<ms> <peak MB> <rows> <sum>`; with `--raw-iteration`,
/// the same with the raw C API; with `--floor-iteration`, the raw read with the least a fetch's
/// `[NSManagedObject]` must hold besides: one object per row, with its ID; with
/// `--unique-floor-iteration`, that and the least a context's uniquing needs: a table from row to
/// object (`[Int64: Unmanaged<FloorFault>]`, sized once).
let iterationModes = ["--batch-iteration", "--raw-iteration", "--floor-iteration", "--unique-floor-iteration"]
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--stream-iteration" {
    streamIteration(path: CommandLine.arguments[2])
}
if CommandLine.arguments.count == 3, iterationModes.contains(CommandLine.arguments[1]) {
    let path = CommandLine.arguments[2]
    let start = clock.now
    var total: Int64 = 0
    var rows = 0
    if CommandLine.arguments[1].hasSuffix("floor-iteration") {
        let db = openRaw(path)
        let objects = floorFaults(db)
        var table: [Int64: Unmanaged<FloorFault>] = [:]
        if CommandLine.arguments[1] == "--unique-floor-iteration" {
            table.reserveCapacity(objects.count)
            for object in objects { table[object.id.row] = Unmanaged.passUnretained(object) }
        }
        let salaries = Raw(db, "SELECT ZSALARY FROM ZEMPLOYEE")
        salaries.rows {
            total &+= salaries.int(0)
            rows += 1
        }
        if objects.count != rows || (!table.isEmpty && table.count != rows) { rows = -1 }
    } else if CommandLine.arguments[1] == "--raw-iteration" {
        let db = openRaw(path)
        let query = Raw(db, "SELECT Z_PK, ZFIRSTNAME, ZLASTNAME, ZSALARY, ZAGE, ZHIRED, ZDEPARTMENT FROM ZEMPLOYEE")
        query.rows {
            let employee = Employee(
                id: query.int(0), firstName: query.text(1), lastName: query.text(2), salary: query.int(3), age: query.int(4),
                hired: Date(timeIntervalSinceReferenceDate: query.double(5)), department: query.int(6))
            total &+= employee.salary
            rows += 1
        }
    } else {
        let context = newContext(openStore(URL(fileURLWithPath: path)))
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.fetchBatchSize = 1_000
        let objects = try context.fetch(request)
        for object in objects {
            total &+= (object.value(forKey: "salary") as? Int64) ?? 0
            rows += 1
        }
    }
    print((clock.now - start).milliseconds, peakMegabytes(), rows, total)
    exit(0)
}

/// A fault per employee row as the floors hold it: an object with its ID.
func floorFaults(_ db: OpaquePointer) -> [FloorFault] {
    let store = NSObject()
    let keys = Raw(db, "SELECT Z_PK FROM ZEMPLOYEE")
    var objects: [FloorFault] = []
    keys.rows { objects.append(FloorFault(id: FloorID(store: store, entity: 2, row: keys.int(0)))) }
    return objects
}

/// With `--floor-fault-memory <store>` (`--unique-floor-fault-memory <store>`): the heap per
/// floor fault of every employee, measured as `--fault-memory` measures ours (with the uniquing
/// table of `--unique-floor-iteration`), printed the same way.
let floorFaultMemoryModes = ["--floor-fault-memory", "--unique-floor-fault-memory"]
if CommandLine.arguments.count == 3, floorFaultMemoryModes.contains(CommandLine.arguments[1]) {
    let db = openRaw(CommandLine.arguments[2])
    _ = floorFaults(db)  // prepares what a first read keeps
    let before = probes_heap_bytes()
    let objects = floorFaults(db)
    var table: [Int64: Unmanaged<FloorFault>] = [:]
    if CommandLine.arguments[1] == "--unique-floor-fault-memory" {
        table.reserveCapacity(objects.count)
        for object in objects { table[object.id.row] = Unmanaged.passUnretained(object) }
    }
    let after = probes_heap_bytes()
    let arrayBytes = objects.capacity * MemoryLayout<FloorFault>.stride
    print((Double(after) - Double(before) - Double(arrayBytes)) / Double(max(objects.count, 1)), objects.count, table.count)
    withExtendedLifetime((objects, table)) {}
    exit(0)
}

/// With `--fault-memory <store>` (`--slim-fault-memory <store>`): fetch every employee as
/// faults (with `includesPropertyValues = false`: faults with no row data, the slim fault),
/// keep them, and print `<heap bytes per object> <objects> <faults>`: the growth of the heap
/// over the fetch, less the result array's 8 bytes per element, divided by the objects. Run
/// with MALLOC_ARENA_MAX=1, as mallinfo2() counts the main arena alone.
let faultMemoryModes = ["--fault-memory", "--slim-fault-memory"]
if CommandLine.arguments.count == 3, faultMemoryModes.contains(CommandLine.arguments[1]) {
    let slim = CommandLine.arguments[1] == "--slim-fault-memory"
    let coordinator = openStore(URL(fileURLWithPath: CommandLine.arguments[2]))
    func request(limit: Int) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.returnsObjectsAsFaults = true
        request.includesPropertyValues = !slim
        request.fetchLimit = limit
        return request
    }
    // A first fetch of the same rows in another context (dropped with it) prepares the
    // statement and fills the caches a fetch keeps for good (SQLite's page cache among them,
    // as the floor's first read fills it), so that the measured growth is the objects' own.
    _ = try newContext(coordinator).fetch(request(limit: 0))
    let context = newContext(coordinator)
    let before = probes_heap_bytes()
    let objects = try context.fetch(request(limit: 0))
    let after = probes_heap_bytes()
    let arrayBytes = objects.capacity * MemoryLayout<NSManagedObject>.stride
    let perObject = (Double(after) - Double(before) - Double(arrayBytes)) / Double(max(objects.count, 1))
    print(perObject, objects.count, objects.count { $0.isFault })
    withExtendedLifetime((context, objects)) {}
    exit(0)
}

print(
    "Fetch benchmarks (NSSQLiteStoreType against the raw SQLite C API on the same file) — "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores, best of \(runs) runs, \(objectCount) employees"
        + (countingInstructions ? " (counting instructions under callgrind)" : ""))

let storeURL = folder.appendingPathComponent("Employees.sqlite")
let coordinator = openStore(storeURL)
let saveStart = clock.now
do {
    let loader = newContext(coordinator)
    insertCompany(into: loader, employees: objectCount, departments: departmentCount, values: &values)
    try loader.save()
} catch {
    fatalError("\(error)")
}
let saveMilliseconds = (clock.now - saveStart).milliseconds
let db = openRaw(storeURL.path)

/// What a line's goal is a ratio to: the raw read, the line's floor, or its peer (GRDB).
enum GoalBase: String { case raw, floor, peer }

/// One measured line: what, our time, the raw time, results, the goal (× raw, × floor or × peer),
/// the floor's and the peer's times, and the rows its instructions are divided by.
struct Line {
    let what: String
    let ours: Double
    let raw: Double
    let results: Int
    let goal: Double?
    let base: GoalBase
    let floor: Double?
    let peer: Double?
    let rows: Int
    /// Instructions per row of our side, the raw side, the floor and the peer (callgrind child).
    var instructions: (ours: Double?, raw: Double?, floor: Double?, peer: Double?) = (nil, nil, nil, nil)

    /// The ratio the goal is about: ours × raw, × floor or × peer.
    var ratio: Double? {
        switch base {
        case .raw: ours / raw
        case .floor: floor.map { ours / $0 }
        case .peer: peer.map { ours / $0 }
        }
    }
    var missesGoal: Bool {
        guard let goal, let ratio else { return false }
        return ratio > goal
    }
}
var lines: [Line] = []
let only = environment["ONLY"]
/// Lines measured so far (their number names their callgrind dumps), and what the callgrind
/// child reports back: each line's number, description and rows.
var measuredLines = 0
var countedLines: [(key: Int, what: String, rows: Int)] = []

/// Runs `body` once to warm its caches, then once counted by callgrind, its counts dumped to a
/// file whose trigger is `name` (read back by the parent process).
func counted<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
    _ = try body()
    probes_callgrind_start()
    probes_callgrind_zero()
    let result = try body()
    probes_callgrind_dump(name)
    probes_callgrind_stop()
    return result
}

/// Measures our fetch against the raw C API; with `floor`, also the raw read plus only what
/// Apple's API makes any implementation do on top of it (see "Floors" below); with `peer`, the
/// same work through GRDB. `goal` is a ratio to the raw time, or with `over: .floor` (`.peer`)
/// to the floor's (the peer's); `rows` divides the instructions (default: the results).
func measure(
    _ what: String, goal: Double? = nil, over base: GoalBase = .raw, rows: Int? = nil, raw: () -> Int,
    floor: (() -> Int)? = nil, peer: (() throws -> Int)? = nil, ours: () throws -> Int
) {
    if let only, !what.contains(only) { return }
    measuredLines += 1
    let key = measuredLines
    // The sides take turns, round by round, so that a load on the (shared) machine that comes
    // and goes weighs on all of them alike; each keeps its best round.
    var rawRun = (milliseconds: Double.infinity, result: 0)
    var floorRun = floor.map { _ in (milliseconds: Double.infinity, result: 0) }
    var peerRun = peer.map { _ in (milliseconds: Double.infinity, result: 0) }
    var ourRun = (milliseconds: Double.infinity, result: 0)
    func run(_ side: String, _ body: () throws -> Int, into best: inout (milliseconds: Double, result: Int)) rethrows {
        if countingInstructions {
            best = (0, try counted("\(key).\(side)", body))
            return
        }
        var result = 0
        let elapsed = try clock.measure { result = try body() }.milliseconds
        best = (min(best.milliseconds, elapsed), result)
    }
    do {
        for _ in 0..<runs {
            run("raw", raw, into: &rawRun)
            if let floor, var best = floorRun {
                run("floor", floor, into: &best)
                floorRun = best
            }
            if let peer, var best = peerRun {
                try run("peer", peer, into: &best)
                peerRun = best
            }
            try run("ours", ours, into: &ourRun)
        }
        for count in [ourRun.result, floorRun?.result ?? rawRun.result, peerRun?.result ?? rawRun.result]
        where count != rawRun.result {
            FileHandle.standardError.write("\(what): \(count) results, raw \(rawRun.result)\n".data(using: .utf8) ?? Data())
        }
        lines.append(
            Line(
                what: what, ours: ourRun.milliseconds, raw: rawRun.milliseconds, results: ourRun.result, goal: goal, base: base,
                floor: floorRun?.milliseconds, peer: peerRun?.milliseconds, rows: rows ?? ourRun.result))
        countedLines.append((key, what, rows ?? ourRun.result))
    } catch {
        FileHandle.standardError.write("\(what): \(error)\n".data(using: .utf8) ?? Data())
    }
}

// MARK: - Floors

// The least any implementation of Apple's API must add to the raw read: fetch results are class
// instances (an NSManagedObject and its NSManagedObjectID, an NSDictionary), and attributes are
// read through value(forKey:) -> Any?, which the caller casts back. A floor does just that on
// top of the raw read — no registry, no faulting, no row cache — so a goal below it cannot be
// met by any code in this repository.

/// The smallest stand-in for an object ID: an NSObject with its store, entity and row.
final class FloorID: NSObject {
    let store: AnyObject
    let entity: Int
    let row: Int64
    init(store: AnyObject, entity: Int, row: Int64) {
        (self.store, self.entity, self.row) = (store, entity, row)
    }
}

/// The smallest stand-in for a fault: its ID alone.
final class FloorFault: NSObject {
    let id: FloorID
    init(id: FloorID) { self.id = id }
}

/// The smallest stand-in for a managed object: its ID and its values, read by key as `Any?`.
final class FloorObject: NSObject {
    let id: FloorID
    let employee: Employee
    init(id: FloorID, employee: Employee) {
        (self.id, self.employee) = (id, employee)
    }
    func value(forKey key: String) -> Any? {
        switch key {
        case "firstName": employee.firstName
        case "lastName": employee.lastName
        case "salary": employee.salary
        case "age": Int16(truncatingIfNeeded: employee.age)
        case "hired": employee.hired
        case "department": employee.department == 0 ? nil : employee.department
        default: nil
        }
    }
}
let floorStore = NSObject()

let allColumns = "SELECT Z_PK, ZFIRSTNAME, ZLASTNAME, ZSALARY, ZAGE, ZHIRED, ZDEPARTMENT FROM ZEMPLOYEE"
func readEmployees(_ query: Raw, bind: (OpaquePointer) -> Void = { _ in }) -> [Employee] {
    var rows: [Employee] = []
    query.rows(bind) {
        rows.append(
            Employee(
                id: query.int(0), firstName: query.text(1), lastName: query.text(2), salary: query.int(3), age: query.int(4),
                hired: Date(timeIntervalSinceReferenceDate: query.double(5)), department: query.int(6)))
    }
    return rows
}
/// Reads every attribute of every object through `value(forKey:)`, as Core Data code does, and
/// adds them up.
func readAll<Object>(_ objects: [Object], _ value: (Object, String) -> Any?) -> Int64 {
    var total: Int64 = 0
    for object in objects {
        total &+= (value(object, "salary") as? Int64) ?? 0
        total &+= Int64((value(object, "age") as? Int16) ?? 0)
        total &+= Int64((value(object, "firstName") as? String)?.utf8.count ?? 0)
        total &+= Int64((value(object, "lastName") as? String)?.utf8.count ?? 0)
        total &+= Int64((value(object, "hired") as? Date)?.timeIntervalSinceReferenceDate ?? 0)
        total &+= value(object, "department") == nil ? 0 : 1
    }
    return total
}

/// Adds up every attribute of the raw rows, as `readAll` and `readTyped` do of objects.
func sumRows(_ rows: [Employee]) -> Int64 {
    var total: Int64 = 0
    for row in rows {
        total &+= row.salary &+ Int64(Int16(truncatingIfNeeded: row.age))
        total &+= Int64(row.firstName.utf8.count) &+ Int64(row.lastName.utf8.count)
        total &+= Int64(row.hired.timeIntervalSinceReferenceDate) &+ (row.department == 0 ? 0 : 1)
    }
    return total
}
/// Reads every attribute of every employee through its typed `@Managed` properties, as app
/// code does, and adds them up as `readAll` does.
func readTyped(_ objects: [EmployeeObject]) -> Int64 {
    var total: Int64 = 0
    for object in objects {
        total &+= object.salary &+ Int64(object.age)
        total &+= Int64(object.firstName?.utf8.count ?? 0) &+ Int64(object.lastName?.utf8.count ?? 0)
        total &+= Int64(object.hired?.timeIntervalSinceReferenceDate ?? 0) &+ (object.department == nil ? 0 : 1)
    }
    return total
}
/// The raw side of the lines that read every attribute: the rows read into structs, added up.
let everyone = Raw(db, allColumns)
func readAndSum() -> Int {
    let rows = readEmployees(everyone)
    return sumRows(rows) == 0 ? 0 : rows.count
}
/// A floor object per raw row.
func floorObjects() -> [FloorObject] {
    readEmployees(everyone).map { FloorObject(id: FloorID(store: floorStore, entity: 2, row: $0.id), employee: $0) }
}

// Objects: every employee with every attribute read through typed properties, through
// value(forKey:) (both against GRDB's records too), and as faults with nothing read.
let grdb = openGRDB(storePath: storeURL.path)
let grdbRecords = grdb.map { queue in { try readGRDBRecords(queue) } }
measure(
    "objects: fetch every employee, read every attribute through typed @Managed properties", goal: 2.0, over: .peer,
    raw: readAndSum,
    floor: {
        let objects = floorObjects()
        return sumRows(objects.map(\.employee)) == 0 ? 0 : objects.count
    }, peer: grdbRecords
) {
    let context = newContext(coordinator)
    let objects = try context.fetch(NSFetchRequest<EmployeeObject>(entityName: "Employee"))
    return withExtendedLifetime(context) { readTyped(objects) == 0 ? 0 : objects.count }
}
measure(
    "objects: fetch every employee, read every attribute through value(forKey:)", goal: 2.6, over: .peer,
    raw: readAndSum,
    floor: {
        let objects = floorObjects()
        return readAll(objects) { $0.value(forKey: $1) } == 0 ? 0 : objects.count
    }, peer: grdbRecords
) {
    let context = newContext(coordinator)
    let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
    return withExtendedLifetime(context) { readAll(objects) { $0.value(forKey: $1) } == 0 ? 0 : objects.count }
}
measure(
    "objects: fetch every employee as faults, nothing read (rows fetched and kept)", goal: 1.3, over: .floor,
    raw: { readEmployees(everyone).count }, floor: { floorObjects().count }
) {
    try newContext(coordinator).fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).count
}

// Object IDs.
let keys = Raw(db, "SELECT Z_PK FROM ZEMPLOYEE")
measure(
    "object IDs of every employee", goal: 2.0,
    raw: {
        var ids: [Int64] = []
        keys.rows { ids.append(keys.int(0)) }
        return ids.count
    },
    floor: {
        var ids: [FloorID] = []
        keys.rows { ids.append(FloorID(store: floorStore, entity: 2, row: keys.int(0))) }
        return ids.count
    }
) {
    let request = NSFetchRequest<NSManagedObjectID>(entityName: "Employee")
    request.resultType = .managedObjectIDResultType
    return try newContext(coordinator).fetch(request).count
}

// Dictionaries of two attributes.
let twoColumns = Raw(db, "SELECT ZLASTNAME, ZSALARY FROM ZEMPLOYEE")
// The floor's keys are those of our own results: strings with their hash stored.
let resultKeys: [NSObject] = {
    let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
    request.resultType = .dictionaryResultType
    request.propertiesToFetch = ["lastName", "salary"]
    request.fetchLimit = 1
    let keys = (try? newContext(coordinator).fetch(request).first?.allKeys) ?? []
    return ["lastName", "salary"].map { name in keys.first { "\($0)" == name } as? NSObject ?? NSString(string: name) }
}()
measure(
    "dictionaries: lastName, salary of every employee (goal × the NSDictionary floor)", goal: 1.1, over: .floor,
    raw: {
        var rows: [(String, Int64)] = []
        twoColumns.rows { rows.append((twoColumns.text(0), twoColumns.int(1))) }
        return rows.count
    },
    floor: {
        var rows: [NSDictionary] = []
        twoColumns.rows {
            let values: [AnyObject] = [NSString(string: twoColumns.text(0)), NSNumber(value: twoColumns.int(1))]
            rows.append(
                values.withUnsafeBufferPointer { values in
                    resultKeys.withUnsafeBufferPointer {
                        NSDictionary(objects: values.baseAddress, forKeys: $0.baseAddress, count: 2)
                    }
                })
        }
        return rows.count
    }
) {
    let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
    request.resultType = .dictionaryResultType
    request.propertiesToFetch = ["lastName", "salary"]
    return try newContext(coordinator).fetch(request).count
}

// Count.
let countQuery = Raw(db, "SELECT COUNT(*) FROM ZEMPLOYEE WHERE ZSALARY > ?")
func salaryRequest() -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
    request.predicate = NSPredicate(format: "salary > %@", NSNumber(value: minimumSalary))
    return request
}
// Requests are built outside the timed part (the raw side prepares its statements once too).
let counting = salaryRequest()
measure(
    "count: salary > 100000", goal: 1.05, rows: objectCount,
    raw: {
        var count = 0
        countQuery.rows({ sqlite3_bind_int64($0, 1, minimumSalary) }) { count = Int(countQuery.int(0)) }
        return count
    }
) { try newContext(coordinator).count(for: counting) }

// Filter, sort, limit, with every attribute of the results read.
let top = Raw(db, allColumns + " WHERE ZSALARY > ? ORDER BY ZLASTNAME, ZSALARY DESC LIMIT 100")
let topRequest = salaryRequest()
topRequest.sortDescriptors = [
    NSSortDescriptor(key: "lastName", ascending: true), NSSortDescriptor(key: "salary", ascending: false),
]
topRequest.fetchLimit = 100
measure(
    "filter + sort + limit 100, every attribute read", goal: 1.1, rows: objectCount,
    raw: {
        readEmployees(top) { sqlite3_bind_int64($0, 1, minimumSalary) }.count
    }
) {
    let request = topRequest
    let context = newContext(coordinator)
    let objects = try context.fetch(request)
    _ = readAll(objects) { $0.value(forKey: $1) }
    return objects.count
}
let sorted = Raw(db, allColumns + " WHERE ZSALARY > ? ORDER BY ZLASTNAME, ZSALARY DESC")
measure(
    "filter + sort (55% of the rows), every attribute read",
    raw: {
        readEmployees(sorted) { sqlite3_bind_int64($0, 1, minimumSalary) }.count
    }
) {
    let request = salaryRequest()
    request.sortDescriptors = [
        NSSortDescriptor(key: "lastName", ascending: true), NSSortDescriptor(key: "salary", ascending: false),
    ]
    let context = newContext(coordinator)
    let objects = try context.fetch(request)
    _ = readAll(objects) { $0.value(forKey: $1) }
    return objects.count
}

// To-one prefetch: employees with salary > 190000 and their department's name.
let withDepartment = Raw(
    db,
    "SELECT e.Z_PK, e.ZFIRSTNAME, e.ZLASTNAME, e.ZSALARY, e.ZAGE, e.ZHIRED, e.ZDEPARTMENT, d.ZNAME FROM ZEMPLOYEE e "
        + "LEFT JOIN ZDEPARTMENT d ON d.Z_PK = e.ZDEPARTMENT WHERE e.ZSALARY > ?")
measure(
    "to-one prefetch: 5% of employees and their department's name",
    raw: {
        var rows: [(Employee, String)] = []
        withDepartment.rows({ sqlite3_bind_int64($0, 1, 190_000) }) {
            let q = withDepartment
            rows.append(
                (
                    Employee(
                        id: q.int(0), firstName: q.text(1), lastName: q.text(2), salary: q.int(3), age: q.int(4),
                        hired: Date(timeIntervalSinceReferenceDate: q.double(5)), department: q.int(6)), q.text(7)
                ))
        }
        return rows.count
    }
) {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
    request.predicate = NSPredicate(format: "salary > 190000")
    request.relationshipKeyPathsForPrefetching = ["department"]
    let context = newContext(coordinator)
    let objects = try context.fetch(request)
    var length = 0
    for object in objects {
        length += ((object.value(forKey: "department") as? NSManagedObject)?.value(forKey: "name") as? String)?.count ?? 0
    }
    _ = readAll(objects) { $0.value(forKey: $1) }
    return objects.count
}

// Aggregates by department.
let aggregates = Raw(db, "SELECT ZDEPARTMENT, SUM(ZSALARY), AVG(ZAGE) FROM ZEMPLOYEE GROUP BY ZDEPARTMENT")
measure(
    "aggregates: sum(salary), average(age) grouped by department", rows: objectCount,
    raw: {
        var rows: [(Int64, Int64, Double)] = []
        aggregates.rows { rows.append((aggregates.int(0), aggregates.int(1), aggregates.double(2))) }
        return rows.count
    }
) {
    let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
    request.resultType = .dictionaryResultType
    let sum = NSExpressionDescription()
    sum.name = "total"
    sum.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "salary")])
    sum.expressionResultType = .integer64AttributeType
    let average = NSExpressionDescription()
    average.name = "averageAge"
    average.expression = NSExpression(forFunction: "average:", arguments: [NSExpression(forKeyPath: "age")])
    average.expressionResultType = .doubleAttributeType
    request.propertiesToFetch = ["department", sum, average]
    request.propertiesToGroupBy = ["department"]
    return try newContext(coordinator).fetch(request).count
}

// In-memory evaluation on managed objects: every employee fetched (outside the timing), then a
// predicate evaluated on each, against a hand-written closure over the same objects' typed
// properties (the "raw" side of these lines).
let evaluationContext = newContext(coordinator)
let fetchedEmployees = (try? evaluationContext.fetch(NSFetchRequest<EmployeeObject>(entityName: "Employee"))) ?? []
let evaluated = NSPredicate(format: "salary > %@ AND lastName BEGINSWITH \"Ka\"", NSNumber(value: minimumSalary))
func closureMatches() -> Int {
    fetchedEmployees.count { $0.salary > minimumSalary && ($0.lastName?.hasPrefix("Ka") ?? false) }
}
measure(
    "evaluate(with:) on managed objects: salary > 100000 AND lastName BEGINSWITH \"Ka\" (raw: a closure)", goal: 3,
    rows: fetchedEmployees.count, raw: closureMatches
) { fetchedEmployees.count { evaluated.evaluate(with: $0) } }
measure(
    "filtered(using:) on managed objects, the same predicate (raw: a closure)", rows: fetchedEmployees.count,
    raw: closureMatches
) { fetchedEmployees.filtered(using: evaluated).count }

// The peer on its own: the same rows read through GRDB (GRDBBenchmarks.swift).
if let grdb { measureGRDB(grdb, raw: readAndSum) }

// The callgrind child stops here and tells the parent which line each dump belongs to.
if countingInstructions {
    let report = countedLines.map { ["key": $0.key, "what": $0.what, "rows": $0.rows] as [String: Any] }
    if let data = try? JSONSerialization.data(withJSONObject: report), let text = String(data: data, encoding: .utf8) {
        print(text)
    }
    exit(0)
}

measureStringOperators()

// MARK: - Batch iteration over 10^6 rows, in child processes

/// A store of `count` employees written with the raw C API into a store file the coordinator
/// created (so the layout is ours), `Z_PRIMARYKEY` updated.
func bigStore(count: Int) -> URL {
    let url = folder.appendingPathComponent("Big.sqlite")
    _ = openStore(url)
    let big = openRaw(url.path)
    defer { sqlite3_close(big) }
    var entity: Int64 = 0
    let entityQuery = Raw(big, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Employee'")
    entityQuery.rows { entity = entityQuery.int(0) }
    sqlite3_exec(big, "BEGIN", nil, nil, nil)
    let insert = Raw(
        big,
        "INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZFIRSTNAME, ZLASTNAME, ZSALARY, ZAGE, ZHIRED) VALUES (?, ?, 1, ?, ?, ?, ?, ?)"
    )
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    for index in 1...count {
        sqlite3_reset(insert.statement)
        sqlite3_bind_int64(insert.statement, 1, Int64(index))
        sqlite3_bind_int64(insert.statement, 2, entity)
        sqlite3_bind_text(insert.statement, 3, values.name(2), -1, transient)
        sqlite3_bind_text(insert.statement, 4, values.name(3), -1, transient)
        sqlite3_bind_int64(insert.statement, 5, 20_000 + Int64(values.next() % 180_000))
        sqlite3_bind_int64(insert.statement, 6, Int64(20 + values.next() % 45))
        sqlite3_bind_double(insert.statement, 7, Double(values.next() % 600_000_000))
        sqlite3_step(insert.statement)
    }
    sqlite3_exec(big, "UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_NAME = 'Employee'", nil, nil, nil)
    sqlite3_exec(big, "COMMIT", nil, nil, nil)
    sqlite3_exec(big, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
    return url
}

func child(_ mode: String, _ url: URL) -> (milliseconds: Double, megabytes: Double, rows: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = [mode, url.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { fatalError("\(error)") }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let fields = output.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
    guard fields.count == 4, let ms = Double(fields[0]), let mb = Double(fields[1]), let rows = Int(fields[2]) else {
        FileHandle.standardError.write("\(mode): \(output)\n".data(using: .utf8) ?? Data())
        return (0, 0, 0)
    }
    return (ms, mb, rows)
}

var rawIteration = (milliseconds: 0.0, megabytes: 0.0, rows: 0)
var batchIteration = rawIteration
var floorIteration = rawIteration
var uniqueFloorIteration = rawIteration
if batchObjectCount > 0 {
    let bigURL = bigStore(count: batchObjectCount)
    rawIteration = child("--raw-iteration", bigURL)
    floorIteration = child("--floor-iteration", bigURL)
    uniqueFloorIteration = child("--unique-floor-iteration", bigURL)
    batchIteration = child("--batch-iteration", bigURL)
}

// MARK: - Memory per fetched, unfired fault, in child processes

/// Heap bytes per fetched fault of every employee of the store (see `--fault-memory`).
func faultBytes(_ mode: String) -> (bytes: Double, objects: Int, faults: Int)? {
    let output = childOutput(CommandLine.arguments[0], [mode, storeURL.path], environment: ["MALLOC_ARENA_MAX": "1"])
    let fields = (output ?? "").split(whereSeparator: \.isWhitespace)
    guard fields.count == 3, let bytes = Double(fields[0]), let objects = Int(fields[1]), let faults = Int(fields[2]) else {
        FileHandle.standardError.write("\(mode): \(output ?? "failed")\n".data(using: .utf8) ?? Data())
        return nil
    }
    return (bytes, objects, faults)
}
let faultGoalBytes = 64.0
let slimFault = only == nil ? faultBytes("--slim-fault-memory") : nil
let rowFault = only == nil ? faultBytes("--fault-memory") : nil
let floorFault = only == nil ? faultBytes("--floor-fault-memory") : nil
let uniqueFloorFault = only == nil ? faultBytes("--unique-floor-fault-memory") : nil

// MARK: - Instructions per row, in a child process under callgrind

/// Runs this program with `--instructions-child` under callgrind on INSTRUCTIONS_OBJECTS
/// employees and puts each line's instructions per row into `lines`; what it could not count
/// stays nil (printed as "-").
func countInstructions() {
    let (output, counts) = callgrindCounts(
        arguments: ["--instructions-child"],
        environment: ["OBJECTS": environment["INSTRUCTIONS_OBJECTS"] ?? "10000", "BATCH_OBJECTS": "0"],
        dumps: environment["CALLGRIND_DIR"].map { URL(fileURLWithPath: $0) })
    guard let report = output?.split(separator: "\n").last,
        let entries = (try? JSONSerialization.jsonObject(with: Data(report.utf8))) as? [[String: Any]]
    else {
        FileHandle.standardError.write("callgrind run: \(output ?? "failed")\n".data(using: .utf8) ?? Data())
        return
    }
    // Each dump's trigger names its line and side: "<line>.<side>".
    for entry in entries {
        guard let key = entry["key"] as? Int, let what = entry["what"] as? String, let rows = entry["rows"] as? Int, rows > 0,
            let index = lines.firstIndex(where: { $0.what == what })
        else { continue }
        let perRow = { (side: String) in counts["\(key).\(side)"].map { $0 / Double(rows) } }
        lines[index].instructions = (perRow("ours"), perRow("raw"), perRow("floor"), perRow("peer"))
    }
}
let instructionObjects = Int(environment["INSTRUCTIONS_OBJECTS"] ?? "") ?? 10_000
let wantsInstructions = CommandLine.arguments.contains("--instructions") || environment["INSTRUCTIONS"] != "0"
let valgrind = wantsInstructions ? executableOnPath("valgrind") : nil
if valgrind != nil { countInstructions() }

// MARK: - Report

/// "✓" or "✗" for a figure against its goal (nothing without a goal).
func mark(_ figure: Double?, goal: Double?) -> String {
    guard let figure, let goal else { return " " }
    return figure <= goal ? "✓" : "✗"
}
func format(_ value: Double?, _ format: String, width: Int) -> String {
    let text = value.map { String(format: format, $0) } ?? "-"
    return String(repeating: " ", count: max(width - text.count, 0)) + text
}

print("")
print("  ours ms   raw ms  × raw    goal    floor  ×floor  ×GRDB   instr/row ours/raw/GRDB  results  what")
for line in lines {
    let suffix =
        switch line.base {
        case .raw: " "
        case .floor: "f"
        case .peer: "g"
        }
    let goal = line.goal.map { String(format: "%.2f", $0) + suffix }
    let instructions =
        format(line.instructions.ours, "%.0f", width: 9) + " " + format(line.instructions.raw, "%.0f", width: 6) + " "
        + format(line.instructions.peer, "%.0f", width: 6)
    print(
        format(line.ours, "%.1f", width: 9), format(line.raw, "%.1f", width: 8), format(line.ours / line.raw, "%.2f", width: 6),
        String(repeating: " ", count: max(7 - (goal ?? "-").count, 0)) + (goal ?? "-") + " " + mark(line.ratio, goal: line.goal),
        format(line.floor.map { $0 / line.raw }, "%.2f", width: 6), format(line.floor.map { line.ours / $0 }, "%.2f", width: 7),
        format(line.peer.map { line.ours / $0 }, "%.2f", width: 6), " " + instructions, String(format: "%8d", line.results),
        " " + line.what)
}
print(
    """
    (goal: ours × raw, with "f" ours × floor, with "g" ours × GRDB's records decoded by column index; ✗ misses \
    it. floor: the raw read plus only the class instances and Any casts Apple's API requires, × raw; ×floor: \
    ours × floor; ×GRDB: ours × GRDB's records, measured in turn with the other sides. instr/row: instructions \
    per result row (per row scanned for count, limit 100 and aggregates; per object for evaluate and filtered), \
    counted by callgrind on \(instructionObjects) employees\(valgrind == nil ? " (valgrind not run: -)" : "").)
    """)
print("")
let batchGoalMegabytes = 120.0
print(
    String(
        format:
            "fetchBatchSize 1000 over %d rows, salary read: %.0f ms, peak %.1f MB (goal ≤ %.0f MB) %@; raw C API: %.0f ms, peak %.1f MB",
        batchIteration.rows, batchIteration.milliseconds, batchIteration.megabytes, batchGoalMegabytes,
        batchObjectCount > 0 ? mark(batchIteration.megabytes, goal: batchGoalMegabytes) : "-", rawIteration.milliseconds,
        rawIteration.megabytes))
print(
    String(
        format:
            "Its floor (the raw read, and one object with its ID per row kept in an array): peak %.1f MB; "
            + "with a table from row to object, as uniquing needs: %.1f MB",
        floorIteration.megabytes, uniqueFloorIteration.megabytes))
func faultLine(_ name: String, _ figure: (bytes: Double, objects: Int, faults: Int)?, goal: Double?) -> String {
    guard let figure else { return "\(name): -" }
    let goalText = goal.map { String(format: " (goal ≤ %.0f) %@", $0, mark(figure.bytes, goal: $0)) } ?? " (no goal)"
    return String(
        format: "%@: %.1f bytes per object%@, %d objects, %d of them faults", name, figure.bytes, goalText, figure.objects,
        figure.faults)
}
print(
    faultLine(
        "Heap per fetched, unfired slim fault (includesPropertyValues = false, no row data)", slimFault, goal: faultGoalBytes))
print(faultLine("Heap per fetched, unfired fault with its row cached (default settings)", rowFault, goal: nil))
for (name, figure) in [
    ("Its floor: one object with its ID", floorFault),
    ("Its floor with a table from row to object, as uniquing needs", uniqueFloorFault),
] {
    print(figure.map { String(format: "%@: %.1f bytes per object, %d objects", name, $0.bytes, $0.objects) } ?? "\(name): -")
}
print(streamingReport(raw: rawIteration))
print(String(format: "Saving %d employees and %d departments: %.0f ms (one run)", objectCount, departmentCount, saveMilliseconds))

func fault(_ figure: (bytes: Double, objects: Int, faults: Int)?) -> Any {
    figure.map { ["bytesPerObject": $0.bytes, "objects": $0.objects, "faults": $0.faults] as [String: Any] } ?? NSNull()
}
let json: [String: Any] = [
    "objects": objectCount, "runs": runs, "saveMilliseconds": saveMilliseconds,
    "batchIteration": [
        "rows": batchIteration.rows, "milliseconds": batchIteration.milliseconds, "peakMegabytes": batchIteration.megabytes,
        "rawMilliseconds": rawIteration.milliseconds, "rawPeakMegabytes": rawIteration.megabytes,
        "floorPeakMegabytes": floorIteration.megabytes, "uniqueFloorPeakMegabytes": uniqueFloorIteration.megabytes,
        "goalPeakMegabytes": batchGoalMegabytes,
    ],
    "faultMemory": [
        "goalBytes": faultGoalBytes, "slimFault": fault(slimFault), "faultWithRow": fault(rowFault), "floor": fault(floorFault),
        "uniqueFloor": fault(uniqueFloorFault),
    ],
    "instructionObjects": valgrind == nil ? 0 : instructionObjects,
    "results": lines.map { line -> [String: Any] in
        var result: [String: Any] = [
            "what": line.what, "milliseconds": line.ours, "rawMilliseconds": line.raw, "ratio": line.ours / line.raw,
            "results": line.results, "rows": line.rows,
        ]
        if let floor = line.floor {
            result["floorMilliseconds"] = floor
            result["floorRatio"] = floor / line.raw
            result["oursOverFloor"] = line.ours / floor
        }
        if let peer = line.peer {
            result["peerMilliseconds"] = peer
            result["oursOverPeer"] = line.ours / peer
        }
        if let goal = line.goal {
            result["goal"] = goal
            result["goalOver"] = line.base.rawValue
            result["meetsGoal"] = !line.missesGoal
        }
        var instructions: [String: Double] = [:]
        instructions["ours"] = line.instructions.ours
        instructions["raw"] = line.instructions.raw
        instructions["floor"] = line.instructions.floor
        instructions["peer"] = line.instructions.peer
        if !instructions.isEmpty { result["instructionsPerRow"] = instructions }
        return result
    },
]
if let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]),
    let text = String(data: data, encoding: .utf8)
{
    print(text)
    if let output = CommandLine.arguments.dropFirst().first(where: { !$0.hasPrefix("--") }) {
        try? data.write(to: URL(fileURLWithPath: output))
    }
}
