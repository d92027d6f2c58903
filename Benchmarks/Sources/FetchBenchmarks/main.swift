// Prints figures for fetching from an NSSQLiteStoreType store of 100,000 employees in 100
// departments, each against the raw SQLite C API doing the same work on the same file in the same
// run, and the peak memory of iterating 10^6 rows with a fetchBatchSize (in a child process, so
// that the figure is that iteration's alone). Where a goal is set, a floor is measured too: the
// raw read plus only what Apple's API makes any implementation add (see "Floors"). Nothing here
// is a test.
//
//     cd Benchmarks && swift run -c release FetchBenchmarks [results.json]
//
// OBJECTS=<n> changes the number of employees (default 100,000); BATCH_OBJECTS=<n> the rows of
// the batch iteration (default 1,000,000). The table goes to stdout; the last line of stdout is
// the same results as one JSON object, also written to the file named by the first argument.

import CoreData
import RawSQLite

#if canImport(Glibc)
    import Glibc
#endif

let clock = ContinuousClock()
let runs = 5
let environment = ProcessInfo.processInfo.environment
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

/// Peak resident memory of this process so far, in MB: `VmHWM` of /proc/self/status, which
/// starts afresh at exec (getrusage's `ru_maxrss` keeps the parent's peak in a spawned child).
func peakMegabytes() -> Double {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    {
        return kilobytes / 1024
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

// MARK: - Model

func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.attributeType = type
    return attribute
}

func makeModel() -> NSManagedObjectModel {
    let department = NSEntityDescription()
    department.name = "Department"
    let employee = NSEntityDescription()
    employee.name = "Employee"
    let employees = NSRelationshipDescription()
    employees.name = "employees"
    employees.destinationEntity = employee
    employees.maxCount = 0
    employees.deleteRule = .nullifyDeleteRule
    let worksIn = NSRelationshipDescription()
    worksIn.name = "department"
    worksIn.destinationEntity = department
    worksIn.maxCount = 1
    employees.inverseRelationship = worksIn
    worksIn.inverseRelationship = employees
    department.properties = [attribute("name", .stringAttributeType), attribute("budget", .integer64AttributeType), employees]
    employee.properties = [
        attribute("firstName", .stringAttributeType), attribute("lastName", .stringAttributeType),
        attribute("salary", .integer64AttributeType), attribute("age", .integer16AttributeType),
        attribute("hired", .dateAttributeType), worksIn,
    ]
    let model = NSManagedObjectModel()
    model.entities = [department, employee]
    return model
}

let model = makeModel()
guard let employeeEntity = model.entitiesByName["Employee"], let departmentEntity = model.entitiesByName["Department"] else {
    fatalError("model")
}

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

func openRaw(_ path: String) -> OpaquePointer {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { fatalError("sqlite3_open") }
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

var seed: UInt64 = 42
func next() -> UInt64 {
    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return seed >> 33
}
let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "we", "zo", "an", "el", "or", "us", "ix"]
func name(_ count: Int) -> String {
    (0..<count).map { _ in syllables[Int(next() % UInt64(syllables.count))] }.joined().capitalized
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("FetchBenchmarks-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }

/// With `--batch-iteration <store>`: iterate every employee of the store with a fetchBatchSize,
/// reading the salary of each, and print `<ms> <peak MB> <rows> <sum>`; with `--raw-iteration`,
/// the same with the raw C API; with `--floor-iteration`, the raw read with the least a fetch's
/// `[NSManagedObject]` must hold besides: one object per row, with its ID.
let iterationModes = ["--batch-iteration", "--raw-iteration", "--floor-iteration"]
if CommandLine.arguments.count == 3, iterationModes.contains(CommandLine.arguments[1]) {
    let path = CommandLine.arguments[2]
    let start = clock.now
    var total: Int64 = 0
    var rows = 0
    if CommandLine.arguments[1] == "--floor-iteration" {
        let db = openRaw(path)
        let store = NSObject()
        let keys = Raw(db, "SELECT Z_PK FROM ZEMPLOYEE")
        var objects: [FloorFault] = []
        keys.rows { objects.append(FloorFault(id: FloorID(store: store, entity: 2, row: keys.int(0)))) }
        let salaries = Raw(db, "SELECT ZSALARY FROM ZEMPLOYEE")
        salaries.rows {
            total &+= salaries.int(0)
            rows += 1
        }
        if objects.count != rows { rows = -1 }
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

print(
    "Fetch benchmarks (NSSQLiteStoreType against the raw SQLite C API on the same file) — "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores, best of \(runs) runs, \(objectCount) employees")

let storeURL = folder.appendingPathComponent("Employees.sqlite")
let coordinator = openStore(storeURL)
let saveStart = clock.now
do {
    let loader = newContext(coordinator)
    let departments = (0..<departmentCount).map { index -> NSManagedObject in
        let department = NSManagedObject(entity: departmentEntity, insertInto: loader)
        department.setValue("Department \(index)", forKey: "name")
        department.setValue(Int64(index * 1_000), forKey: "budget")
        return department
    }
    for index in 0..<objectCount {
        let object = NSManagedObject(entity: employeeEntity, insertInto: loader)
        object.setValue(name(2), forKey: "firstName")
        object.setValue(name(3), forKey: "lastName")
        object.setValue(20_000 + Int64(next() % 180_000), forKey: "salary")
        object.setValue(Int16(20 + next() % 45), forKey: "age")
        object.setValue(Date(timeIntervalSinceReferenceDate: Double(next() % 600_000_000)), forKey: "hired")
        object.setValue(departments[index % departmentCount], forKey: "department")
    }
    try loader.save()
} catch {
    fatalError("\(error)")
}
let saveMilliseconds = (clock.now - saveStart).milliseconds
let db = openRaw(storeURL.path)

/// One measured line: what, our time, the raw time, results, the goal, and the floor's time.
var lines: [(what: String, ours: Double, raw: Double, results: Int, goal: Double?, floor: Double?)] = []
let only = environment["ONLY"]
/// Measures our fetch against the raw C API; with `floor`, also the raw read plus only what
/// Apple's API makes any implementation do on top of it (see "Floors" below).
func measure(_ what: String, goal: Double? = nil, raw: () -> Int, floor: (() -> Int)? = nil, ours: () throws -> Int) {
    if let only, !what.contains(only) { return }
    let rawRun = best(raw)
    let floorRun = floor.map { best($0) }
    do {
        let ourRun = try best(ours)
        for count in [ourRun.result, floorRun?.result ?? rawRun.result] where count != rawRun.result {
            FileHandle.standardError.write("\(what): \(count) results, raw \(rawRun.result)\n".data(using: .utf8) ?? Data())
        }
        lines.append((what, ourRun.milliseconds, rawRun.milliseconds, ourRun.result, goal, floorRun?.milliseconds))
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

// Objects: every employee, as faults, then with every attribute read.
let everyone = Raw(db, allColumns)
measure("objects: fetch every employee (faults filled from the row cache)", raw: { readEmployees(everyone).count }) {
    try newContext(coordinator).fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).count
}
measure(
    "objects: fetch every employee, then read every attribute", goal: 1.5, raw: { readEmployees(everyone).count },
    floor: {
        let objects = readEmployees(everyone).map {
            FloorObject(id: FloorID(store: floorStore, entity: 2, row: $0.id), employee: $0)
        }
        return readAll(objects) { $0.value(forKey: $1) } == 0 ? 0 : objects.count
    }
) {
    let context = newContext(coordinator)
    let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
    _ = readAll(objects) { $0.value(forKey: $1) }
    return objects.count
}

// Object IDs.
let keys = Raw(db, "SELECT Z_PK FROM ZEMPLOYEE")
measure(
    "object IDs of every employee", goal: 1.2,
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
    "dictionaries: lastName, salary of every employee", goal: 1.3,
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
    "count: salary > 100000", goal: 1.05,
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
    "filter + sort + limit 100, every attribute read", goal: 1.1,
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
    "aggregates: sum(salary), average(age) grouped by department",
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
        sqlite3_bind_text(insert.statement, 3, name(2), -1, transient)
        sqlite3_bind_text(insert.statement, 4, name(3), -1, transient)
        sqlite3_bind_int64(insert.statement, 5, 20_000 + Int64(next() % 180_000))
        sqlite3_bind_int64(insert.statement, 6, Int64(20 + next() % 45))
        sqlite3_bind_double(insert.statement, 7, Double(next() % 600_000_000))
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
if batchObjectCount > 0 {
    let bigURL = bigStore(count: batchObjectCount)
    rawIteration = child("--raw-iteration", bigURL)
    floorIteration = child("--floor-iteration", bigURL)
    batchIteration = child("--batch-iteration", bigURL)
}

// MARK: - Report

print("")
print("     ours ms    raw ms   × raw   goal  floor  results  what")
for line in lines {
    let goal = line.goal.map { String(format: "%5.2f", $0) } ?? "    -"
    let floor = line.floor.map { String(format: "%5.2f", $0 / line.raw) } ?? "    -"
    print(
        String(
            format: "%10.1f %9.1f %7.2f  %@  %@  %7d  %@", line.ours, line.raw, line.ours / line.raw, goal, floor, line.results,
            line.what))
}
print("(floor: the raw read plus only the class instances and Any casts Apple's API requires, as × raw)")
print("")
print(
    String(
        format:
            "fetchBatchSize 1000 over %d rows, salary read: %.0f ms, peak %.1f MB (goal < 64 MB); raw C API: %.0f ms, peak %.1f MB",
        batchIteration.rows, batchIteration.milliseconds, batchIteration.megabytes, rawIteration.milliseconds,
        rawIteration.megabytes))
print(
    String(
        format: "Its floor (the raw read, and one object with its ID per row kept in an array): peak %.1f MB",
        floorIteration.megabytes))
print(String(format: "Saving %d employees and %d departments: %.0f ms (one run)", objectCount, departmentCount, saveMilliseconds))

let json: [String: Any] = [
    "objects": objectCount, "runs": runs, "saveMilliseconds": saveMilliseconds,
    "batchIteration": [
        "rows": batchIteration.rows, "milliseconds": batchIteration.milliseconds, "peakMegabytes": batchIteration.megabytes,
        "rawMilliseconds": rawIteration.milliseconds, "rawPeakMegabytes": rawIteration.megabytes,
        "floorPeakMegabytes": floorIteration.megabytes,
    ],
    "results": lines.map { line -> [String: Any] in
        var result: [String: Any] = [
            "what": line.what, "milliseconds": line.ours, "rawMilliseconds": line.raw, "ratio": line.ours / line.raw,
            "results": line.results,
        ]
        if let floor = line.floor { result["floorMilliseconds"] = floor }
        return result
    },
]
if let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]),
    let text = String(data: data, encoding: .utf8)
{
    print(text)
    if CommandLine.arguments.count > 1 { try? data.write(to: URL(fileURLWithPath: CommandLine.arguments[1])) }
}
