import CoreData
import RawSQLite

/// String operators in a fetch: `salary > 50000 AND lastName <op> '<value>'`, sorted by
/// lastName, salary descending, limit 100, every attribute read — against the same query written
/// by hand in plain SQL through the raw C API (what SQLite can evaluate without any function of
/// ours: a range for BEGINSWITH, `instr`, `substr`, `lower`). Last names are three capitalised
/// syllables ("Kalomi"), so each value below matches some rows.
///
/// A constant with a character that Unicode also spells as a canonical singleton (`K`, also the
/// Kelvin sign U+212A) has a floor beside it: the plain query plus the range of the other
/// spelling, which any answer equal to Foundation's must also test.
func measureStringOperators() {
    let order = " ORDER BY ZLASTNAME, ZSALARY DESC LIMIT 100"
    let cases: [(name: String, format: String, value: String, sql: String, bind: [String])] = [
        ("BEGINSWITH", "lastName BEGINSWITH %@", "Ka", "ZLASTNAME >= ? AND ZLASTNAME < ?", ["Ka", "Kb"]),
        ("BEGINSWITH", "lastName BEGINSWITH %@", "Lomi", "ZLASTNAME >= ? AND ZLASTNAME < ?", ["Lomi", "Lomj"]),
        ("CONTAINS", "lastName CONTAINS %@", "lomi", "instr(ZLASTNAME, ?) > 0", ["lomi"]),
        ("ENDSWITH", "lastName ENDSWITH %@", "mi", "substr(ZLASTNAME, -2) = ?", ["mi"]),
        ("==[c]", "lastName ==[c] %@", "kalomi", "lower(ZLASTNAME) = ?", ["kalomi"]),
        ("BEGINSWITH[c]", "lastName BEGINSWITH[c] %@", "ka", "lower(substr(ZLASTNAME, 1, 2)) = ?", ["ka"]),
        ("CONTAINS[c]", "lastName CONTAINS[c] %@", "LOMI", "instr(lower(ZLASTNAME), ?) > 0", ["lomi"]),
        ("ENDSWITH[c]", "lastName ENDSWITH[c] %@", "MI", "lower(substr(ZLASTNAME, -2)) = ?", ["mi"]),
    ]
    let salary: Int64 = 50_000
    let kelvinFloor = (
        sql: "((ZLASTNAME >= ? AND ZLASTNAME < ?) OR (ZLASTNAME >= ? AND ZLASTNAME < ?))",
        bind: ["Ka", "Kb", "\u{212A}a", "\u{212A}b"]
    )
    for test in cases {
        let raw = Raw(db, allColumns + " WHERE ZSALARY > ? AND " + test.sql + order)
        func read(_ query: Raw, binding texts: [String]) -> Int {
            readEmployees(query) { statement in
                sqlite3_bind_int64(statement, 1, salary)
                for (index, text) in texts.enumerated() {
                    sqlite3_bind_text(statement, Int32(index + 2), text, -1, rawTransient)
                }
            }.count
        }
        let floor: (() -> Int)? =
            test.value.hasPrefix("K")
            ? {
                let query = Raw(db, allColumns + " WHERE ZSALARY > ? AND " + kelvinFloor.sql + order)
                return { read(query, binding: kelvinFloor.bind) }
            }() : nil
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(
            format: "salary > %@ AND " + test.format, argumentArray: [NSNumber(value: salary), test.value])
        request.sortDescriptors = [
            NSSortDescriptor(key: "lastName", ascending: true), NSSortDescriptor(key: "salary", ascending: false),
        ]
        request.fetchLimit = 100
        measure(
            "string \(test.name) '\(test.value)': salary > 50000, sort, limit 100, every attribute read", goal: 1.2,
            raw: { read(raw, binding: test.bind) },
            floor: floor
        ) {
            let context = newContext(coordinator)
            let objects = try context.fetch(request)
            _ = readAll(objects) { $0.value(forKey: $1) }
            return objects.count
        }
    }
}

/// SQLITE_TRANSIENT: SQLite copies the bound text.
private let rawTransient = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)
