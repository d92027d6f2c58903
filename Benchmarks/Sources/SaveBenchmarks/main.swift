// Prints figures for the save of 100,000 new objects into an NSSQLiteStoreType store, with and
// without validation rules, against its floor: the same rows inserted with the raw SQLite C API
// in one transaction with one prepared statement. Nothing here is a test.
//
//     cd Benchmarks && swift build -c release --product SaveBenchmarks && .build/release/SaveBenchmarks [results.json]
//
// One entity, `Person`: name (String), age (Integer 16), email (String), born (Date). Lines:
//
// - plain, no rules: every attribute optional, no validation predicates;
// - plain, rules: name required, 2…40 characters matching [A-Z][a-z]+; age required, 0…150;
//   email matching .+@.+; born between 1900 and 2030 — every value generated keeps them;
// - typed, no rules / typed, rules: the same with a `@Managed` subclass (one that overrides
//   `validateValue(_:forKey:)` would send every property through it; this one does not, so its
//   save checks only the properties with rules, as the plain lines do);
// - raw C API: the same rows and columns, one transaction, one prepared INSERT (the values are
//   made before the clock starts, as the objects are for the other lines);
// - floor: the raw loop plus what Apple's API has any save of new objects do besides writing
//   them: a permanent ID object per object and the sets the notifications carry (the objects
//   twice, their IDs once), with `NSObject`s standing in for objects and IDs;
// - API floor: the least a save through Apple's API can do with objects that hold their values:
//   the rows bound from `NSObject`s with four typed fields (made before the clock starts, as
//   the managed objects are), and each step the API documents for every new object, each a pass
//   over them: the objects-did-change set, `willSave()`, `validateForInsert()`, a permanent ID
//   and the object's entry under it in a table of registered objects (one pass with the
//   binding), `didSave()`, then the set of the IDs (the did-save notification may post the
//   objects-did-change set again, as ours does). The three calls are to open methods, as
//   overrides make them.
//
// Each line makes a fresh store, inserts the objects (not timed), then times `validateForInsert()`
// on every object and, separately, `save()` (which validates again). OBJECTS=<n> sets the count
// (default 100,000); ROUNDS=<n> the rounds (default 5), lines taking turns; medians are printed.
// Where valgrind is on PATH (and INSTRUCTIONS is not 0), a child run under callgrind counts the
// instructions per object of each line's save on INSTRUCTIONS_OBJECTS objects (default 10,000),
// in its second round (the first warms caches and statements); CALLGRIND_DIR=<folder> keeps
// its dump files, one per line, for callgrind_annotate.
// The run checks the rows each save wrote (with the raw C API) and exits non-zero if one is
// missing or a save or validation fails. The last line of stdout is the results as one JSON
// object, also written to the path given as the first argument, if any.

import BenchmarkSupport
import CoreData
import Probes
import RawSQLite

#if canImport(Glibc)
    import Glibc
#endif

let environment = ProcessInfo.processInfo.environment
let objectCount = Int(environment["OBJECTS"] ?? "") ?? 100_000
let rounds = max(1, Int(environment["ROUNDS"] ?? "") ?? 5)

final class Person: NSManagedObject {
    @Managed var name: String?
    @Managed var age: Int16
    @Managed var email: String?
    @Managed var born: Date?
}

func model(rules: Bool, typed: Bool) -> NSManagedObjectModel {
    func attribute(_ name: String, _ type: NSAttributeType, _ predicates: [String] = []) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        if rules {
            attribute.setValidationPredicates(
                predicates.map { NSPredicate(format: $0) }, withValidationWarnings: predicates.map { "\(name): \($0)" })
        }
        return attribute
    }
    let name = attribute("name", .stringAttributeType, ["length >= 2", "length <= 40", "SELF MATCHES '[A-Z][a-z]+'"])
    let age = attribute("age", .integer16AttributeType, ["SELF >= 0", "SELF <= 150"])
    let email = attribute("email", .stringAttributeType, ["SELF MATCHES '.+@.+'"])
    let born = attribute(
        "born", .dateAttributeType, ["SELF >= CAST(-3187296000, 'NSDate')", "SELF <= CAST(915148800, 'NSDate')"])
    name.isOptional = !rules
    age.isOptional = !rules
    let person = NSEntityDescription()
    person.name = "Person"
    if typed { person.managedObjectClassName = NSStringFromClass(Person.self) }
    person.properties = [name, age, email, born]
    let model = NSManagedObjectModel()
    model.entities = [person]
    return model
}

/// The values of object `index`: the same in every line.
func values(_ index: Int) -> (name: String, age: Int16, email: String, born: Date) {
    let letters = Array("abcdefghijklmnopqrstuvwxyz")
    let name = "P" + String((0..<(3 + index % 8)).map { letters[(index &* 7 &+ $0 &* 13) % 26] })
    return (
        name, Int16(index % 120), "\(name.lowercased())@example.org",
        Date(timeIntervalSinceReferenceDate: Double(index % 900_000_000))
    )
}

func temporaryStore() -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SaveBenchmarks-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("People.sqlite")
}

func rowCount(_ url: URL) -> Int {
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { return -1 }
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, "SELECT count(*) FROM ZPERSON", -1, &statement, nil) == SQLITE_OK, let statement else {
        return -1
    }
    defer { sqlite3_finalize(statement) }
    return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : -1
}

struct Timing {
    var validate: [Double] = []
    var save: [Double] = []
}

let clock = ContinuousClock()
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

/// Whether this process is the callgrind child (`--instructions-child`, under valgrind), which
/// counts the saves of its last round instead of timing them.
let countingInstructions = CommandLine.arguments.dropFirst().first == "--instructions-child" && probes_on_valgrind() != 0
/// Whether the current round is the one the callgrind child counts.
var countsThisRound = false

/// The milliseconds `body` takes; in the callgrind child's counted round, its instructions are
/// dumped under `name` instead (and 0 is returned).
func timed(_ name: String, _ body: () throws -> Void) rethrows -> Double {
    guard countingInstructions else { return milliseconds(try clock.measure(body)) }
    guard countsThisRound else {
        try body()
        return 0
    }
    probes_callgrind_start()
    probes_callgrind_zero()
    defer {
        probes_callgrind_dump(name)
        probes_callgrind_stop()
    }
    try body()
    return 0
}

/// One line's round: a fresh store, the objects inserted, then validation and the save timed.
func runCoreData(_ label: String, rules: Bool, typed: Bool, into timing: inout Timing) throws {
    let url = temporaryStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model(rules: rules, typed: typed))
    _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
        let entity = coordinator.managedObjectModel.entitiesByName["Person"] ?? NSEntityDescription()
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(objectCount)
        for index in 0..<objectCount {
            let (name, age, email, born) = values(index)
            if typed {
                let person = Person(context: context)
                person.name = name
                person.age = age
                person.email = email
                person.born = born
                objects.append(person)
            } else {
                let object = NSManagedObject(entity: entity, insertInto: context)
                object.setValue(name, forKey: "name")
                object.setValue(age, forKey: "age")
                object.setValue(email, forKey: "email")
                object.setValue(born, forKey: "born")
                objects.append(object)
            }
        }
        var failure: Error?
        timing.validate.append(
            milliseconds(
                clock.measure {
                    do { for object in objects { try object.validateForInsert() } } catch { failure = error }
                }))
        if let failure { throw failure }
        timing.save.append(try timed(label) { try context.save() })
    }
    let rows = rowCount(url)
    guard rows == objectCount else {
        print("error: the save (rules: \(rules), typed: \(typed)) wrote \(rows) rows, not \(objectCount)")
        exit(1)
    }
}

/// A stand-in for an object in the floor: an `NSObject` (hashed and compared as one).
final class FloorObject: NSObject {}

/// A stand-in for an object ID in the floor: an `NSObject` with its store, entity and row.
final class FloorID: NSObject {
    let store: AnyObject
    let entity: Int
    let row: Int64
    init(store: AnyObject, entity: Int, row: Int64) { (self.store, self.entity, self.row) = (store, entity, row) }
}

/// A new store file for the raw sides, opened with the raw C API in WAL mode (as the stores of
/// the other lines are), with Apple's `ZPERSON` table; the caller closes and removes it.
func rawStore() -> (url: URL, db: OpaquePointer) {
    let url = temporaryStore()
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
        let db
    else { exit(1) }
    sqlite3_exec(db, "PRAGMA journal_mode = WAL", nil, nil, nil)
    sqlite3_exec(
        db,
        "CREATE TABLE ZPERSON (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAGE INTEGER, ZBORN TIMESTAMP, "
            + "ZEMAIL VARCHAR, ZNAME VARCHAR)", nil, nil, nil)
    return (url, db)
}

/// The raw loop: the same rows with the raw C API, one transaction, one prepared INSERT. With
/// `notifying`, the floor: the raw loop plus what Apple's API has any save of new objects do
/// besides writing them — a permanent ID object per object, and the sets its notifications
/// carry: the objects (`NSManagedObjectContextObjectsDidChange`'s inserted objects, then
/// `NSManagedObjectContextDidSave`'s) and their IDs (`NSManagedObjectContextDidSaveObjectIDs`).
func runRaw(into timing: inout Timing, notifying: Bool = false) {
    let (url, db) = rawStore()
    defer {
        sqlite3_close(db)
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let rows = (0..<objectCount).map(values)
    let objects = notifying ? (0..<objectCount).map { _ in FloorObject() } : []
    let store = NSObject()
    var notified = 0
    timing.save.append(
        timed(notifying ? "floor" : "raw C API") {
            if notifying { notified += Set(objects).count }
            sqlite3_exec(db, "BEGIN", nil, nil, nil)
            var insert: OpaquePointer?
            sqlite3_prepare_v2(
                db, "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZAGE, ZBORN, ZEMAIL, ZNAME) VALUES (?, 1, 1, ?, ?, ?, ?)", -1,
                &insert, nil)
            for (index, (name, age, email, born)) in rows.enumerated() {
                sqlite3_reset(insert)
                sqlite3_bind_int64(insert, 1, Int64(index + 1))
                sqlite3_bind_int64(insert, 2, Int64(age))
                sqlite3_bind_double(insert, 3, born.timeIntervalSinceReferenceDate)
                sqlite3_bind_text(insert, 4, email, -1, transient)
                sqlite3_bind_text(insert, 5, name, -1, transient)
                if sqlite3_step(insert) != SQLITE_DONE { exit(1) }
            }
            sqlite3_finalize(insert)
            sqlite3_exec(db, "COMMIT", nil, nil, nil)
            if notifying {
                let ids = (0..<objectCount).map { FloorID(store: store, entity: 1, row: Int64($0 + 1)) }
                notified += Set(objects).count + Set(ids).count
            }
        })
    guard notified == (notifying ? 3 * objectCount : 0) else { exit(1) }
    let written = rowCount(url)
    guard written == objectCount else {
        print("error: the raw C API wrote \(written) rows, not \(objectCount)")
        exit(1)
    }
}

/// An object of the API floor: one row's values in typed fields, and the methods a save calls
/// on each new object (open, as a subclass may override them; they do nothing).
class FloorPerson: NSObject {
    var name: String
    var age: Int16
    var email: String
    var born: Date
    init(_ values: (name: String, age: Int16, email: String, born: Date)) {
        (name, age, email, born) = values
    }
    func willSave() {}
    func validateForInsert() throws {}
    func didSave() {}
}

/// The API floor (see the top of this file): the rows bound from objects, with the passes
/// Apple's API documents for a save of new objects.
func runAPIFloor(into timing: inout Timing) {
    let (url, db) = rawStore()
    defer {
        sqlite3_close(db)
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let objects = (0..<objectCount).map { FloorPerson(values($0)) }
    let store = NSObject()
    var registered: [Int64: Unmanaged<FloorPerson>] = [:]
    var notified = 0
    var failure: Error?
    timing.save.append(
        timed("API floor") {
            let inserted = Set(objects)
            notified += inserted.count
            for object in objects { object.willSave() }
            do { for object in objects { try object.validateForInsert() } } catch { failure = error }
            registered.reserveCapacity(objectCount)
            var ids: [FloorID] = []
            ids.reserveCapacity(objectCount)
            sqlite3_exec(db, "BEGIN", nil, nil, nil)
            var insert: OpaquePointer?
            sqlite3_prepare_v2(
                db, "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZAGE, ZBORN, ZEMAIL, ZNAME) VALUES (?, 1, 1, ?, ?, ?, ?)", -1,
                &insert, nil)
            for (index, object) in objects.enumerated() {
                let row = Int64(index + 1)
                ids.append(FloorID(store: store, entity: 1, row: row))
                registered[row] = Unmanaged.passUnretained(object)
                sqlite3_reset(insert)
                sqlite3_bind_int64(insert, 1, row)
                sqlite3_bind_int64(insert, 2, Int64(object.age))
                sqlite3_bind_double(insert, 3, object.born.timeIntervalSinceReferenceDate)
                sqlite3_bind_text(insert, 4, object.email, -1, transient)
                sqlite3_bind_text(insert, 5, object.name, -1, transient)
                if sqlite3_step(insert) != SQLITE_DONE { exit(1) }
            }
            sqlite3_finalize(insert)
            sqlite3_exec(db, "COMMIT", nil, nil, nil)
            for object in objects { object.didSave() }
            notified += Set(ids).count + (inserted.isEmpty ? 0 : inserted.count)
        })
    guard failure == nil, notified == 3 * objectCount, registered.count == objectCount else { exit(1) }
    let written = rowCount(url)
    guard written == objectCount else {
        print("error: the API floor wrote \(written) rows, not \(objectCount)")
        exit(1)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

let allLines: [(label: String, rules: Bool, typed: Bool)] = [
    ("plain, no rules", false, false), ("plain, rules", true, false), ("typed, no rules", false, true),
    ("typed, rules", true, true),
]
/// `ONLY=<substring>` runs the lines whose label contains it (and the raw loop), for profiling.
let lines = allLines.filter { line in environment["ONLY"].map { line.label.contains($0) } ?? true }
var timings = Array(repeating: Timing(), count: lines.count)
var raw = Timing()
var floor = Timing()
var apiFloor = Timing()
for round in 0..<rounds {
    countsThisRound = round == rounds - 1
    for (index, line) in lines.enumerated() {
        do {
            try runCoreData(line.label, rules: line.rules, typed: line.typed, into: &timings[index])
        } catch {
            print("error: \(line.label): \(error)")
            exit(1)
        }
    }
    runRaw(into: &raw)
    runRaw(into: &floor, notifying: true)
    runAPIFloor(into: &apiFloor)
}

if countingInstructions { exit(0) }

// Instructions per object of each line's save, from a child run under callgrind.
let instructionObjects = Int(environment["INSTRUCTIONS_OBJECTS"] ?? "") ?? 10_000
var instructions: [String: Double] = [:]
if environment["INSTRUCTIONS"] != "0", executableOnPath("valgrind") != nil {
    let (output, counts) = callgrindCounts(
        arguments: ["--instructions-child"], environment: ["OBJECTS": "\(instructionObjects)", "ROUNDS": "2"],
        dumps: environment["CALLGRIND_DIR"].map { URL(fileURLWithPath: $0) })
    if output == nil { FileHandle.standardError.write("callgrind run: failed\n".data(using: .utf8) ?? Data()) }
    instructions = counts.mapValues { $0 / Double(instructionObjects) }
}

let rawSave = median(raw.save)
print("Save of \(objectCount) new objects, SQLite store, median of \(rounds) rounds (ms)")
print("line                 validateForInsert   save   save/raw   instr/object   instr/raw")
var results: [String: Double] = ["raw": rawSave]
/// Prints a line of the table: its save against the raw loop's, in time and in instructions.
func report(_ label: String, validate: Double?, save: Double) {
    let perObject = instructions[label], rawPerObject = instructions["raw C API"]
    print(
        label.padding(toLength: 20, withPad: " ", startingAt: 0)
            + (validate.map { String(format: " %17.0f", $0) } ?? "                 -")
            + String(format: " %6.0f %9.2f×", save, save / rawSave)
            + (perObject.map { String(format: " %14.0f", $0) } ?? "              -")
            + (perObject.flatMap { ours in rawPerObject.map { String(format: " %10.2f×", ours / $0) } } ?? "          -"))
    if let perObject { results[label + " instructions per object"] = perObject }
}
for (index, line) in lines.enumerated() {
    let validate = median(timings[index].validate), save = median(timings[index].save)
    report(line.label, validate: validate, save: save)
    results[line.label + " validate"] = validate
    results[line.label + " save"] = save
}
report("raw C API", validate: nil, save: rawSave)
let floorSave = median(floor.save)
report("floor", validate: nil, save: floorSave)
results["floor"] = floorSave
let apiFloorSave = median(apiFloor.save)
report("API floor", validate: nil, save: apiFloorSave)
results["API floor"] = apiFloorSave
print(
    "(instr/object: instructions per object of the save, counted by callgrind on \(instructionObjects) objects"
        + (instructions.isEmpty ? "; valgrind not run: -)" : ")"))
if lines.count == allLines.count {
    let plain = median(timings[0].save), ruled = median(timings[1].save)
    let typedPlain = median(timings[2].save), typedRuled = median(timings[3].save)
    let plainValidate = median(timings[0].validate), ruledValidate = median(timings[1].validate)
    let typedPlainValidate = median(timings[2].validate), typedRuledValidate = median(timings[3].validate)
    print(
        String(
            format: "save, rules / no rules: plain %.2f×, typed %.2f×; typed / plain: no rules %.2f×, rules %.2f×",
            ruled / plain, typedRuled / typedPlain, typedPlain / plain, typedRuled / ruled))
    print(
        String(
            format: "validateForInsert, rules / no rules: plain %.2f×, typed %.2f×", ruledValidate / plainValidate,
            typedRuledValidate / typedPlainValidate))
    results["save rules/no rules plain"] = ruled / plain
    results["save rules/no rules typed"] = typedRuled / typedPlain
}
if let data = try? JSONSerialization.data(withJSONObject: results, options: [.sortedKeys]),
    let json = String(data: data, encoding: .utf8)
{
    print(json)
    if let path = CommandLine.arguments.dropFirst().first {
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            print("error: \(path): \(error)")
            exit(1)
        }
    }
}
