// Prints figures for fetching from an NSPostgreSQLStoreType store of 100,000 employees in 100
// departments, each against postgres-nio running the same SQL text the store runs, on its own
// connection to the same server, and decoding the same columns by hand into Swift values, in the
// same run (best of 5, the sides taking turns); then the read throughput of 1, 2, 4 and 8 client
// processes fetching at once from the one server; then the peak memory of iterating 10^6 rows with
// a fetchBatchSize, in child processes. Nothing here is a test.
//
//     OPENCOREDATA_POSTGRES_URL=postgres://user@host:port/db \
//         swift run -c release PostgresBenchmarks [results.json]
//
// Without OPENCOREDATA_POSTGRES_URL it says so and exits 0. The store goes into a fresh schema
// (`pgbench_<pid>`, or SCHEMA=<name>), dropped at the end. OBJECTS=<n> sets the employees (default
// 100,000), BATCH_OBJECTS=<n> the batch iteration's rows (default 10^6; 0 skips it);
// ONLY=<substring> runs only the lines whose description contains it; CLIENT_SECONDS=<s>
// sets how long each throughput round runs (default 5; 0 skips the rounds); CLIENTS=1,2,4,8 sets
// the process counts. `PostgresBenchmarks client <seconds> <start>` is one client process (the
// main run starts them): it opens the store named by OPENCOREDATA_POSTGRES_URL, waits until the
// wall-clock time <start> (seconds since 1970), runs the filter + sort + limit fetch in a fresh
// context for <seconds>, and prints `<fetches> <seconds> <cpu seconds>`.
//
// The SQL of each raw line is the text the store sends (read from the server's log with
// log_statement = all, for this model and these requests): the store compiles fetches with the
// SQLite store's compiler in a PostgreSQL dialect, and sends each one as an unnamed extended-
// protocol statement (parse, bind, execute) on a pooled connection whose search_path is the
// schema. The raw side does the same (postgres-nio's `query`, the async row sequence, values
// decoded with `PostgresRow.decode`), so the ratio is what the library adds to the same round
// trip: the server's work and the wire are in both sides. The object lines also have a floor:
// the raw read, then the same objects fetched and read from an in-memory store holding the
// same rows (Core Data's object layer with no database behind it). After the table: the raw
// read of the whole-table lines done both ways (rows decoded as they arrive, and the whole
// result received first, as the store's session does), and the server's and this process's
// CPU in one raw read.
// The throughput rounds print each round's client and server CPU per fetch and the fetches a
// second the machine's cores could give at that cost (the ceiling the curve flattens at).

import BenchmarkSupport
import CoreData
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

let clock = ContinuousClock()
let environment = ProcessInfo.processInfo.environment
let runs = 5
let objectCount = Int(environment["OBJECTS"] ?? "") ?? 100_000
let departmentCount = 100
let minimumSalary: Int64 = 100_000

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15 }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write("PostgresBenchmarks: \(message)\n".data(using: .utf8) ?? Data())
    exit(1)
}

guard let serverText = environment["OPENCOREDATA_POSTGRES_URL"], !serverText.isEmpty else {
    print(
        "PostgresBenchmarks: set OPENCOREDATA_POSTGRES_URL=postgres://user@host:port/database (for instance "
            + "`url=$(.ci/postgres start)`) to measure the PostgreSQL store; nothing measured.")
    exit(0)
}
guard var serverComponents = URLComponents(string: serverText), let serverHost = serverComponents.host else {
    fail("OPENCOREDATA_POSTGRES_URL is not a postgres:// URL: \(serverText)")
}
let isClient = CommandLine.arguments.count == 4 && CommandLine.arguments[1] == "client"
let schema = environment["SCHEMA"] ?? "pgbench_\(getpid())"
serverComponents.queryItems =
    (serverComponents.queryItems ?? []).filter { $0.name != "schema" } + [
        URLQueryItem(name: "schema", value: schema)
    ]
guard let storeURL = serverComponents.url else { fail("no store URL") }

// MARK: - Model (FetchBenchmarks' model: BenchmarkSupport's company model)

let model = makeCompanyModel()

func openStore() -> NSPersistentStoreCoordinator {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    do {
        try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: storeURL, options: nil)
    } catch {
        fail("adding the store at \(storeURL): \(error)")
    }
    return coordinator
}

func newContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}

/// The filter + sort + limit request: salary > 100000, by lastName then salary descending, 100.
func topRequest() -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
    request.predicate = NSPredicate(format: "salary > %@", NSNumber(value: minimumSalary))
    request.sortDescriptors = [
        NSSortDescriptor(key: "lastName", ascending: true), NSSortDescriptor(key: "salary", ascending: false),
    ]
    request.fetchLimit = 100
    return request
}

let attributeNames = ["firstName", "lastName", "salary", "age", "hired", "department"]

/// Reads every attribute of each object through value(forKey:) and adds them up.
func readAll(_ objects: [NSManagedObject]) -> Int64 {
    var total: Int64 = 0
    for object in objects {
        for key in attributeNames {
            switch object.value(forKey: key) {
            case let value as Int64: total &+= value
            case let value as Int16: total &+= Int64(value)
            case let value as String: total &+= Int64(value.utf8.count)
            case let value as Date: total &+= Int64(value.timeIntervalSinceReferenceDate)
            case .some: total &+= 1
            case .none: break
            }
        }
    }
    return total
}

/// Reads every attribute through the typed properties, as app code does, and adds them up.
func readTyped(_ objects: [EmployeeObject]) -> Int64 {
    var total: Int64 = 0
    for object in objects {
        total &+= object.salary &+ Int64(object.age)
        total &+= Int64(object.firstName?.utf8.count ?? 0) &+ Int64(object.lastName?.utf8.count ?? 0)
        total &+= Int64(object.hired?.timeIntervalSinceReferenceDate ?? 0) &+ (object.department == nil ? 0 : 1)
    }
    return total
}

// MARK: - Raw postgres-nio

/// What a `blocking` body returned, handed from its task to the waiting thread.
let logger = {
    var logger = Logger(label: "PostgresBenchmarks")
    logger.logLevel = .critical
    return logger
}()

/// A connection of its own, configured as the store's pool configures its connections: the same
/// server, login and database, no TLS, search_path the store's schema.
func connectRaw(searchPath: String?) -> PostgresConnection {
    var configuration = PostgresConnection.Configuration(
        host: serverHost, port: serverComponents.port ?? 5432, username: serverComponents.user ?? "postgres",
        password: serverComponents.password, database: serverComponents.path.split(separator: "/").first.map(String.init),
        tls: .disable)
    if let searchPath {
        configuration.options.additionalStartupParameters = [("search_path", "\"\(searchPath)\"")]
    }
    let config = configuration
    do {
        return try blocking { try await PostgresConnection.connect(configuration: config, id: 1, logger: logger) }
    } catch {
        fail("connecting to \(serverHost): \(error)")
    }
}

/// One row of the raw side, every column the store's object fetch reads.
struct Employee {
    let entity: Int64
    let id: Int64
    let version: Int64
    let firstName: String?
    let lastName: String?
    let salary: Int64
    let age: Int64
    let hired: Double?
    let department: Int64?
}

/// Runs `sql` (with `salary` bound to $1 when given, and `limit` and offset 0 to $2 and $3) and decodes each row with `decode`.
func rawRows<Row: Sendable>(
    _ connection: PostgresConnection, _ sql: String, salary: Int64? = nil, limit: Int64? = nil,
    _ decode: @escaping @Sendable (PostgresRow) throws -> Row
) -> [Row] {
    do {
        return try blocking {
            var binds = PostgresBindings()
            if let salary { binds.append(salary) }
            if let limit {
                binds.append(limit)
                binds.append(Int64(0))
            }
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            var result: [Row] = []
            for try await row in rows { result.append(try decode(row)) }
            return result
        }
    } catch {
        fail("\(sql): \(String(reflecting: error))")
    }
}

/// `rawRows` as the store's session reads: the whole result received first (postgres-nio's
/// `EventLoopFuture<PostgresQueryResult>`, waited on), then each row decoded.
func collectedRows<Row>(
    _ connection: PostgresConnection, _ sql: String, salary: Int64? = nil, limit: Int64? = nil,
    _ decode: (PostgresRow) throws -> Row
) -> [Row] {
    var binds = PostgresBindings()
    if let salary { binds.append(salary) }
    if let limit {
        binds.append(limit)
        binds.append(Int64(0))
    }
    do {
        let result = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
        var rows: [Row] = []
        rows.reserveCapacity(result.rows.count)
        for row in result.rows { rows.append(try decode(row)) }
        return rows
    } catch {
        fail("\(sql): \(String(reflecting: error))")
    }
}

@Sendable func decodeEmployee(_ row: PostgresRow) throws -> Employee {
    let (id, entity, version, age, salary, department, hired, firstName, lastName) = try row.decode(
        (Int64, Int64, Int64, Int64, Int64, Int64?, Double?, String?, String?).self)
    return Employee(
        entity: entity, id: id, version: version, firstName: firstName, lastName: lastName, salary: salary, age: age,
        hired: hired, department: department)
}

func sumRows(_ rows: [Employee]) -> Int64 {
    var total: Int64 = 0
    for row in rows {
        total &+= row.salary &+ row.age &+ Int64(row.firstName?.utf8.count ?? 0) &+ Int64(row.lastName?.utf8.count ?? 0)
        total &+= Int64(row.hired ?? 0) &+ (row.department == nil ? 0 : 1)
    }
    return total
}

// The store's SQL for these requests, as the server logged it (see the header). Note that the
// store orders an unsorted fetch by Z_PK (a sort on the server that the raw side pays too).
let employeeColumns =
    "SELECT t0.\"Z_PK\", t0.\"Z_ENT\", t0.\"Z_OPT\", t0.\"ZAGE\", t0.\"ZSALARY\", t0.\"ZDEPARTMENT\", "
    + "t0.\"ZHIRED\", t0.\"ZFIRSTNAME\", t0.\"ZLASTNAME\" FROM \"ZEMPLOYEE\" t0"
let allEmployeesSQL = employeeColumns + " ORDER BY t0.\"Z_PK\""
let idsSQL = "SELECT t0.\"Z_PK\", t0.\"Z_ENT\" FROM \"ZEMPLOYEE\" t0 ORDER BY t0.\"Z_PK\""
let dictionariesSQL = "SELECT t0.\"ZLASTNAME\", t0.\"ZSALARY\" FROM \"ZEMPLOYEE\" t0 ORDER BY t0.\"Z_PK\""
let countSQL = "SELECT COUNT(*) FROM \"ZEMPLOYEE\" t0 WHERE t0.\"ZSALARY\" > $1"
/// Bound as the store binds it: $1 the salary, $2 the limit (100), $3 the offset (0).
let topSQL =
    employeeColumns
    + " WHERE t0.\"ZSALARY\" > $1 ORDER BY t0.\"ZLASTNAME\" NULLS FIRST, t0.\"ZSALARY\" DESC NULLS LAST, "
    + "t0.\"Z_PK\" LIMIT $2 OFFSET $3"

// MARK: - Client process (throughput)

/// Microseconds of CPU this process has used (user + system).
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

if isClient {
    guard let seconds = Double(CommandLine.arguments[2]), let start = Double(CommandLine.arguments[3]) else {
        fail("usage: PostgresBenchmarks client <seconds> <start time>")
    }
    let coordinator = openStore()
    // One fetch before the start: the connection is open and the statement's plan cached.
    _ = try? newContext(coordinator).fetch(topRequest())
    let wait = start - Date().timeIntervalSince1970
    if wait > 0 { usleep(UInt32(wait * 1e6)) }
    let cpuBefore = processCPUSeconds()
    let began = clock.now
    let deadline = began + .milliseconds(Int(seconds * 1000))
    var fetches = 0
    var rows = 0
    let request = topRequest()
    while clock.now < deadline {
        do {
            let context = newContext(coordinator)
            let objects = try context.fetch(request)
            rows += readAll(objects) == 0 ? 0 : objects.count
            fetches += 1
        } catch {
            fail("client fetch: \(error)")
        }
    }
    let elapsed = (clock.now - began).milliseconds / 1000
    print(fetches, elapsed, processCPUSeconds() - cpuBefore, rows)
    exit(0)
}

// MARK: - Batch iteration child processes

/// With `batch-iteration` (or `raw-iteration`): iterate every employee of the store in SCHEMA
/// with a `fetchBatchSize` of 1000, reading the salary of each (or the same rows' keys and
/// salaries through postgres-nio, decoded as they arrive), and print `<ms> <peak MB> <rows> <sum>`.
if CommandLine.arguments.count == 2, ["batch-iteration", "raw-iteration"].contains(CommandLine.arguments[1]) {
    let start = clock.now
    var (rows, total) = (0, Int64(0))
    do {
        if CommandLine.arguments[1] == "raw-iteration" {
            let connection = connectRaw(searchPath: schema)
            (rows, total) = try blocking {
                var (rows, total) = (0, Int64(0))
                let query: PostgresQuery = #"SELECT "Z_PK", "ZSALARY" FROM "ZEMPLOYEE""#
                for try await (_, salary) in try await connection.query(query, logger: logger).decode((Int64, Int64?).self) {
                    total &+= salary ?? 0
                    rows += 1
                }
                try await connection.close()
                return (rows, total)
            }
        } else {
            let context = newContext(openStore())
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.fetchBatchSize = 1_000
            for object in try context.fetch(request) {
                total &+= (object.value(forKey: "salary") as? Int64) ?? 0
                rows += 1
            }
        }
    } catch {
        fail("\(CommandLine.arguments[1]): \(error)")
    }
    print((clock.now - start).milliseconds, peakMegabytes(), rows, total)
    exit(0)
}

// MARK: - The store

print(
    "PostgreSQL fetch benchmarks (NSPostgreSQLStoreType against postgres-nio running the same SQL on the same server) — "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores, best of \(runs) runs, \(objectCount) employees, "
        + "server \(serverHost):\(serverComponents.port ?? 5432), schema \(schema)")

print(String(format: "Load average at the start: %.1f (1 min), %.1f (5 min)", loadAverage().0, loadAverage().1))
let admin = connectRaw(searchPath: nil)
func dropSchema() {
    _ = rawRows(admin, "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE") { _ in 0 }
}
dropSchema()
let coordinator = openStore()
/// Inserts the employees and departments (the same ones on every call) and saves.
func load(_ coordinator: NSPersistentStoreCoordinator) {
    let loader = newContext(coordinator)
    var values = EmployeeValues()
    insertCompany(into: loader, employees: objectCount, departments: departmentCount, values: &values)
    do {
        try loader.save()
    } catch {
        fail("saving: \(error)")
    }
}
let saveStart = clock.now
load(coordinator)
let saveMilliseconds = (clock.now - saveStart).milliseconds
// The object lines' floor: the same objects from an in-memory store (the object layer with no
// database behind it) after the raw read.
let memoryCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
do {
    try memoryCoordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
} catch {
    fail("adding the in-memory store: \(error)")
}
load(memoryCoordinator)
// Fresh statistics for the planner, for both sides alike.
_ = rawRows(admin, "ANALYZE \"\(schema)\".\"ZEMPLOYEE\"") { _ in 0 }
let raw = connectRaw(searchPath: schema)

/// What a line's goal is a ratio to: the raw read, or the line's floor.
enum GoalBase: String { case raw, floor }

struct Line {
    let what: String
    let ours: Double
    let raw: Double
    let results: Int
    let goal: Double?
    let base: GoalBase
    let floor: Double?
    var ratio: Double? {
        switch base {
        case .raw: ours / raw
        case .floor: floor.map { ours / $0 }
        }
    }
}
var lines: [Line] = []
let only = environment["ONLY"]

/// Measures our fetch against the raw side (and the floor, when given), best of `runs` rounds,
/// the sides taking turns within each round.
func measure(
    _ what: String, goal: Double? = nil, over base: GoalBase = .raw, raw: () -> Int, floor: (() -> Int)? = nil,
    ours: () throws -> Int
) {
    if let only, !what.contains(only) { return }
    var rawRun = (milliseconds: Double.infinity, result: 0)
    var floorRun = (milliseconds: Double.infinity, result: 0)
    var ourRun = (milliseconds: Double.infinity, result: 0)
    func run(_ body: () throws -> Int, into best: inout (milliseconds: Double, result: Int)) rethrows {
        var result = 0
        let elapsed = try clock.measure { result = try body() }.milliseconds
        best = (min(best.milliseconds, elapsed), result)
    }
    do {
        // A first round of each, untimed: plans cached, pools warm.
        _ = raw()
        _ = try ours()
        for _ in 0..<runs {
            run(raw, into: &rawRun)
            if let floor { run(floor, into: &floorRun) }
            try run(ours, into: &ourRun)
        }
        if ourRun.result != rawRun.result {
            FileHandle.standardError.write(
                "\(what): \(ourRun.result) results, raw \(rawRun.result)\n".data(using: .utf8) ?? Data())
        }
        lines.append(
            Line(
                what: what, ours: ourRun.milliseconds, raw: rawRun.milliseconds, results: ourRun.result, goal: goal, base: base,
                floor: floor == nil ? nil : floorRun.milliseconds))
    } catch {
        FileHandle.standardError.write("\(what): \(error)\n".data(using: .utf8) ?? Data())
    }
}

func readAndSum() -> Int {
    let rows = rawRows(raw, allEmployeesSQL, decodeEmployee)
    return sumRows(rows) == 0 ? 0 : rows.count
}

/// Every employee fetched from `coordinator` in a fresh context as `Object`s and read by `read`:
/// the number of objects (0 when the read adds up to 0, so that it is not optimized away).
func fetchAndRead<Object: NSManagedObject>(
    _ coordinator: NSPersistentStoreCoordinator, _ type: Object.Type, _ read: ([Object]) -> Int64
) throws -> Int {
    let context = newContext(coordinator)
    let objects = try context.fetch(NSFetchRequest<Object>(entityName: "Employee"))
    return withExtendedLifetime(context) { read(objects) == 0 ? 0 : objects.count }
}

/// The floor of an object line: the line's raw read, then the same objects from the in-memory
/// store, read the same way.
func objectFloor<Object: NSManagedObject>(raw: () -> Int, _ type: Object.Type, _ read: ([Object]) -> Int64) -> Int {
    raw() == 0 ? 0 : (try? fetchAndRead(memoryCoordinator, type, read)) ?? 0
}

let readFaults: ([NSManagedObject]) -> Int64 = { _ in 1 }
let rawFaults = { rawRows(raw, allEmployeesSQL, decodeEmployee).count }
measure(
    "objects: fetch every employee, read every attribute through typed @Managed properties", goal: 1.5, raw: readAndSum,
    floor: { objectFloor(raw: readAndSum, EmployeeObject.self, readTyped) }
) { try fetchAndRead(coordinator, EmployeeObject.self, readTyped) }
measure(
    "objects: fetch every employee, read every attribute through value(forKey:)", goal: 2.2, raw: readAndSum,
    floor: { objectFloor(raw: readAndSum, NSManagedObject.self, readAll) }
) { try fetchAndRead(coordinator, NSManagedObject.self, readAll) }
measure(
    "objects: fetch every employee as faults, nothing read (rows fetched and kept)", goal: 1.4, raw: rawFaults,
    floor: { objectFloor(raw: rawFaults, NSManagedObject.self, readFaults) }
) { try fetchAndRead(coordinator, NSManagedObject.self, readFaults) }
measure(
    "object IDs of every employee", goal: 1.9,
    raw: { rawRows(raw, idsSQL) { try $0.decode((Int64, Int64).self) }.count }
) {
    let request = NSFetchRequest<NSManagedObjectID>(entityName: "Employee")
    request.resultType = .managedObjectIDResultType
    return try newContext(coordinator).fetch(request).count
}

// Dictionaries: the floor is the raw read plus an NSDictionary per row, which Apple's API
// makes any implementation build.
let dictionaryKeys: [NSObject] = [NSString(string: "lastName"), NSString(string: "salary")]
measure(
    "dictionaries: lastName, salary of every employee (goal × the NSDictionary floor)", goal: 1.1, over: .floor,
    raw: { rawRows(raw, dictionariesSQL) { try $0.decode((String?, Int64).self) }.count },
    floor: {
        let rows = rawRows(raw, dictionariesSQL) { try $0.decode((String?, Int64).self) }
        var dictionaries: [NSDictionary] = []
        dictionaries.reserveCapacity(rows.count)
        for (lastName, salary) in rows {
            let values: [AnyObject] = [NSString(string: lastName ?? ""), NSNumber(value: salary)]
            dictionaries.append(
                values.withUnsafeBufferPointer { values in
                    dictionaryKeys.withUnsafeBufferPointer {
                        NSDictionary(objects: values.baseAddress, forKeys: $0.baseAddress, count: 2)
                    }
                })
        }
        return dictionaries.count
    }
) {
    let request = NSFetchRequest<NSDictionary>(entityName: "Employee")
    request.resultType = .dictionaryResultType
    request.propertiesToFetch = ["lastName", "salary"]
    return try newContext(coordinator).fetch(request).count
}

let counting: NSFetchRequest<NSManagedObject> = {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
    request.predicate = NSPredicate(format: "salary > %@", NSNumber(value: minimumSalary))
    return request
}()
measure(
    "count: salary > 100000", goal: 1.05,
    raw: { Int(rawRows(raw, countSQL, salary: minimumSalary) { try $0.decode(Int64.self) }.first ?? -1) }
) { try newContext(coordinator).count(for: counting) }

let top = topRequest()
measure(
    "filter + sort + limit 100 (salary > 100000 by lastName, salary desc), every attribute read", goal: 1.1,
    raw: {
        let rows = rawRows(raw, topSQL, salary: minimumSalary, limit: 100, decodeEmployee)
        return sumRows(rows) == 0 ? 0 : rows.count
    }
) {
    let context = newContext(coordinator)
    let objects = try context.fetch(top)
    return withExtendedLifetime(context) { readAll(objects) == 0 ? 0 : objects.count }
}

/// "✓" or "✗" for a figure against its goal (nothing without a goal).
func mark(_ figure: Double?, goal: Double?) -> String {
    guard let figure, let goal else { return " " }
    return figure <= goal ? "✓" : "✗"
}
func format(_ value: Double?, _ format: String, width: Int) -> String {
    let text = value.map { String(format: format, $0) } ?? "-"
    return String(repeating: " ", count: max(width - text.count, 0)) + text
}

print(
    String(
        format: "Saving %d employees and %d departments through the store: %.0f ms", objectCount, departmentCount,
        saveMilliseconds))
print("  ours ms   raw ms  × raw    goal    floor  ×floor  results  what")
for line in lines {
    let goal = line.goal.map { String(format: "%.2f", $0) + (line.base == .floor ? "f" : " ") }
    print(
        format(line.ours, "%.2f", width: 9) + format(line.raw, "%.2f", width: 9) + format(line.ours / line.raw, "%.2f", width: 7)
            + String(repeating: " ", count: max(7 - (goal ?? "-").count, 0)) + (goal ?? "-") + " "
            + mark(line.ratio, goal: line.goal)
            + format(line.floor, "%.2f", width: 9) + format(line.floor.map { line.ours / $0 }, "%.2f", width: 8)
            + format(Double(line.results), "%.0f", width: 9) + "  " + line.what)
}
print(
    """
    (goal: ours × raw, or with "f" ours × floor; ✗ misses it. raw: postgres-nio on its own connection running the \
    store's SQL text and decoding the same columns into Swift values. Both sides include the server's \
    work and the loopback round trip, which the library cannot shrink: where the raw time is mostly the \
    server's, the ratio understates what the library adds per row in CPU, and where the server and the \
    client share 2 cores, they also compete for them.)
    """)

// MARK: - Server share of the raw time

/// The CPU seconds (user + system) of every process named `postgres`, by pid.
func serverCPU() -> [Int32: Double] {
    var result: [Int32: Double] = [:]
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return result }
    for entry in entries {
        guard let pid = Int32(entry),
            let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
            stat[stat.index(after: open)..<close] == "postgres"
        else { continue }
        // Fields after the name: state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
        result[pid] = (user + system) / ticks
    }
    return result
}
func cpuDelta(_ before: [Int32: Double], _ after: [Int32: Double]) -> Double {
    after.reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
}

// How much of the raw read is the server's CPU: each raw line once more, its server CPU and the
// client's CPU over its wall time.
var serverShares: [[String: Any]] = []
if only == nil {
    // The store's session receives a whole result before decoding its first row; the raw side
    // above decodes rows as they arrive. The same raw read done the store's way, best of 5:
    print("Raw read streamed (as the raw side above) and collected first (as the store's session does), best of \(runs):")
    for (what, streamed, collected) in [
        (
            "every employee, all columns", { rawRows(raw, allEmployeesSQL, decodeEmployee).count },
            { collectedRows(raw, allEmployeesSQL, decodeEmployee).count }
        ),
        (
            "IDs", { rawRows(raw, idsSQL) { try $0.decode((Int64, Int64).self) }.count },
            { collectedRows(raw, idsSQL) { try $0.decode((Int64, Int64).self) }.count }
        ),
        (
            "lastName, salary", { rawRows(raw, dictionariesSQL) { try $0.decode((String?, Int64).self) }.count },
            { collectedRows(raw, dictionariesSQL) { try $0.decode((String?, Int64).self) }.count }
        ),
    ] as [(String, () -> Int, () -> Int)] {
        var best = (streamed: Double.infinity, collected: Double.infinity)
        for _ in 0..<runs {
            best.streamed = min(best.streamed, clock.measure { _ = streamed() }.milliseconds)
            best.collected = min(best.collected, clock.measure { _ = collected() }.milliseconds)
        }
        print(
            String(
                format: "  %@ streamed %8.2f ms   collected %8.2f ms", what.padding(toLength: 28, withPad: " ", startingAt: 0),
                best.streamed, best.collected))
        serverShares.append(["what": what, "streamedMilliseconds": best.streamed, "collectedMilliseconds": best.collected])
    }
    print("Where the raw time goes (one raw run each: wall ms, server CPU ms, this process's CPU ms):")
    for (what, body) in [
        ("every employee, all columns", { readAndSum() }),
        ("IDs", { rawRows(raw, idsSQL) { try $0.decode((Int64, Int64).self) }.count }),
        ("count", { Int(rawRows(raw, countSQL, salary: minimumSalary) { try $0.decode(Int64.self) }.first ?? -1) }),
        ("filter + sort + limit 100", { rawRows(raw, topSQL, salary: minimumSalary, limit: 100, decodeEmployee).count }),
    ] as [(String, () -> Int)] {
        let before = serverCPU()
        let cpuBefore = processCPUSeconds()
        let elapsed = clock.measure { _ = body() }.milliseconds
        let server = cpuDelta(before, serverCPU()) * 1000
        let client = (processCPUSeconds() - cpuBefore) * 1000
        print(
            String(
                format: "  %@ wall %8.2f  server CPU %8.2f  client CPU %8.2f",
                what.padding(toLength: 28, withPad: " ", startingAt: 0), elapsed, server, client))
        serverShares.append([
            "what": what, "milliseconds": elapsed, "serverCPUMilliseconds": server, "clientCPUMilliseconds": client,
        ])
    }
    print("  (CPU times from /proc at 10 ms resolution: rough for the short lines.)")
}

// MARK: - Throughput with 1, 2, 4, 8 client processes

/// The 1- and 5-minute load averages (/proc/loadavg).
func loadAverage() -> (Double, Double) {
    let fields = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ")
    return (fields.count > 1 ? Double(fields[0]) ?? 0 : 0, fields.count > 1 ? Double(fields[1]) ?? 0 : 0)
}

let clientSeconds = Double(environment["CLIENT_SECONDS"] ?? "") ?? 5
let clientCounts = (environment["CLIENTS"] ?? "1,2,4,8").split(separator: ",").compactMap { Int($0) }
var curve: [[String: Any]] = []
/// The most fetches a second the machine's cores could give, at the first round's CPU per fetch.
var ceiling = 0.0
if clientSeconds > 0 && only == nil {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    let machineCPU = { () -> (busy: Double, total: Double) in
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let first = stat.split(separator: "\n").first
        else { return (0, 0) }
        let values = first.split(separator: " ").dropFirst().compactMap { Double($0) }
        let idle = values.count > 4 ? values[3] + values[4] : 0
        let total = values.reduce(0, +)
        return (total - idle, total)
    }
    print(
        "Read throughput: N client processes at once, each fetching filter + sort + limit 100 (every attribute read) in a "
            + "fresh context in a loop for \(clientSeconds) s, against the one server (\(ProcessInfo.processInfo.activeProcessorCount) cores shared by the server and the clients):"
    )
    print("  procs  fetches/s  speed-up  per proc   client CPU s  server CPU s  CPU ms/fetch (client+server)  machine busy")
    var single = 0.0
    for count in clientCounts {
        let start = Date().timeIntervalSince1970 + 3 + Double(count) * 0.5
        var environmentForChild = environment
        environmentForChild["SCHEMA"] = schema
        let pipes = (0..<count).map { _ in Pipe() }
        let processes = pipes.map { pipe -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["client", String(clientSeconds), String(start)]
            process.environment = environmentForChild
            process.standardOutput = pipe
            return process
        }
        do {
            for process in processes { try process.run() }
        } catch {
            fail("starting a client: \(error)")
        }
        let untilStart = start - Date().timeIntervalSince1970
        if untilStart > 0 { usleep(UInt32(untilStart * 1e6)) }
        let serverBefore = serverCPU()
        let machineBefore = machineCPU()
        usleep(UInt32(clientSeconds * 1e6) - 50_000)
        let serverSeconds = cpuDelta(serverBefore, serverCPU())
        let machineAfter = machineCPU()
        let busy = (machineAfter.busy - machineBefore.busy) / max(machineAfter.total - machineBefore.total, 1)
        var fetches = 0.0
        var rate = 0.0
        var clientCPU = 0.0
        for (process, pipe) in zip(processes, pipes) {
            let output = String(data: pipe.fileHandleForReading.readDataToEndOfFile(), encoding: .utf8) ?? ""
            process.waitUntilExit()
            let fields = output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
            guard fields.count >= 3, process.terminationStatus == 0 else {
                fail("a client failed (status \(process.terminationStatus)): \(output)")
            }
            fetches += fields[0]
            rate += fields[0] / fields[1]
            clientCPU += fields[2]
        }
        if count == 1 { single = rate }
        let speedUp = single > 0 ? rate / single : 1
        let perFetch = (clientCPU + serverSeconds) * 1000 / max(fetches, 1)
        print(
            String(
                format: "  %5d  %9.1f  %7.2f×  %8.1f   %12.2f  %12.2f  %7.2f (%.2f + %.2f)  %11.0f%%", count, rate, speedUp,
                rate / Double(count), clientCPU, serverSeconds, perFetch, clientCPU * 1000 / max(fetches, 1),
                serverSeconds * 1000 / max(fetches, 1), busy * 100))
        if count == clientCounts.first {
            let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
            ceiling = cores * 1000 / perFetch
        }
        curve.append([
            "processes": count, "fetchesPerSecond": rate, "speedUp": speedUp, "fetches": fetches,
            "clientCPUSeconds": clientCPU, "serverCPUSeconds": serverSeconds, "machineBusy": busy,
        ])
    }
    let (load1, _) = loadAverage()
    print(
        String(
            format: "  CPU ceiling of this machine at that cost: %.0f cores / %.2f ms per fetch = %.0f fetches/s "
                + "(load average now %.1f: other processes share the cores too)",
            Double(ProcessInfo.processInfo.activeProcessorCount),
            Double(ProcessInfo.processInfo.activeProcessorCount) * 1000 / max(ceiling, 1),
            ceiling, load1))
    print(
        """
        (fetches/s: the sum over the processes of each one's fetches over its own seconds; client and server CPU: \
        the clients' own CPU seconds and every postgres process's, over the round; machine busy: all of the \
        machine's cores, whoever uses them. The server and the clients share \
        \(ProcessInfo.processInfo.activeProcessorCount) cores: one process waits on its round trip, so a second one \
        fills the wait; beyond \(ProcessInfo.processInfo.activeProcessorCount) processes the cores are full and more \
        processes only share the same CPU time, so the curve flattens toward the CPU ceiling: the machine's limit, \
        not the code's.)
        """)
}

// MARK: - Batch iteration over 10^6 rows, in child processes

/// The batch iteration's rows (BATCH_OBJECTS, default 10^6; 0 skips it), written by the server
/// itself into a store of their own (the schema `<schema>_batch`), which the children open.
let batchObjectCount = Int(environment["BATCH_OBJECTS"] ?? "") ?? 1_000_000
let batchGoalMegabytes = 120.0
var batchIteration: [String: Any] = [:]
if batchObjectCount > 0 && only == nil {
    let batchSchema = schema + "_batch"
    func iteration(_ mode: String) -> (milliseconds: Double, megabytes: Double, rows: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [mode]
        process.environment = environment.merging(["SCHEMA": batchSchema]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { fail("starting \(mode): \(error)") }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(whereSeparator: \.isWhitespace)
        guard process.terminationStatus == 0, fields.count == 4, let ms = Double(fields[0]), let mb = Double(fields[1]),
            let rows = Int(fields[2])
        else { fail("\(mode): \(output)") }
        return (ms, mb, rows)
    }
    _ = rawRows(admin, "DROP SCHEMA IF EXISTS \"\(batchSchema)\" CASCADE") { _ in 0 }
    var batchComponents = serverComponents
    batchComponents.queryItems =
        (serverComponents.queryItems ?? []).filter { $0.name != "schema" } + [
            URLQueryItem(name: "schema", value: batchSchema)
        ]
    guard let batchURL = batchComponents.url else { fail("no batch store URL") }
    do {
        // The store makes its tables; the server fills them.
        try NSPersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(
            ofType: NSPostgreSQLStoreType, configurationName: nil, at: batchURL, options: nil)
    } catch {
        fail("adding the batch store: \(error)")
    }
    let q = "\"\(batchSchema)\""
    let entity =
        rawRows(admin, #"SELECT "Z_ENT" FROM \#(q)."Z_PRIMARYKEY" WHERE "Z_NAME" = 'Employee'"#) {
            try $0.decode(Int64.self)
        }.first ?? 0
    _ = rawRows(
        admin,
        #"INSERT INTO \#(q)."ZEMPLOYEE" ("Z_PK", "Z_ENT", "Z_OPT", "ZFIRSTNAME", "ZLASTNAME", "ZSALARY", "ZAGE") "#
            + #"SELECT g, \#(entity), 1, 'First ' || g, 'Last ' || (g % 997), 20000 + (g * 7919) % 180000, 20 + g % 45 "#
            + "FROM generate_series(1::bigint, \(batchObjectCount)) AS g"
    ) { _ in 0 }
    _ = rawRows(admin, #"UPDATE \#(q)."Z_PRIMARYKEY" SET "Z_MAX" = \#(batchObjectCount) WHERE "Z_ENT" = \#(entity)"#) { _ in 0 }
    _ = rawRows(admin, #"ANALYZE \#(q)."ZEMPLOYEE""#) { _ in 0 }
    let rawRun = iteration("raw-iteration")
    let ours = iteration("batch-iteration")
    _ = rawRows(admin, "DROP SCHEMA IF EXISTS \(q) CASCADE") { _ in 0 }
    print(
        String(
            format: "fetchBatchSize 1000 over %d rows, salary read: %.0f ms, peak %.1f MB (goal ≤ %.0f MB) %@; "
                + "raw postgres-nio: %.0f ms, peak %.1f MB",
            ours.rows, ours.milliseconds, ours.megabytes, batchGoalMegabytes, ours.megabytes <= batchGoalMegabytes ? "✓" : "✗",
            rawRun.milliseconds, rawRun.megabytes))
    if ours.rows != batchObjectCount || rawRun.rows != batchObjectCount { fail("the batch iteration read the wrong rows") }
    batchIteration = [
        "rows": ours.rows, "milliseconds": ours.milliseconds, "peakMegabytes": ours.megabytes,
        "rawMilliseconds": rawRun.milliseconds, "rawPeakMegabytes": rawRun.megabytes, "goalPeakMegabytes": batchGoalMegabytes,
    ]
}

dropSchema()

let json: [String: Any] = [
    "cores": ProcessInfo.processInfo.activeProcessorCount, "objects": objectCount, "runs": runs,
    "saveMilliseconds": saveMilliseconds,
    "lines": lines.map { line -> [String: Any] in
        var result: [String: Any] = [
            "what": line.what, "milliseconds": line.ours, "rawMilliseconds": line.raw, "ratio": line.ours / line.raw,
            "results": line.results,
        ]
        if let floor = line.floor {
            result["floorMilliseconds"] = floor
            result["floorRatio"] = line.ours / floor
        }
        if let goal = line.goal {
            result["goal"] = goal
            result["goalOver"] = line.base.rawValue
            result["meetsGoal"] = (line.ratio ?? .infinity) <= goal
        }
        return result
    },
    "rawTime": serverShares,
    "throughput": ["seconds": clientSeconds, "curve": curve, "cpuCeilingFetchesPerSecond": ceiling],
    "batchIteration": batchIteration,
]
if let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]),
    let text = String(data: data, encoding: .utf8)
{
    if let path = CommandLine.arguments.dropFirst().first(where: { !$0.hasPrefix("-") }) {
        try? data.write(to: URL(fileURLWithPath: path))
    }
    print(text)
}
try? raw.close().wait()
try? admin.close().wait()
