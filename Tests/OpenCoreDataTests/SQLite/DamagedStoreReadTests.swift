import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import OpenStoreCore
import TestSupport
import Testing

/// Stores damaged at random (from a fixed seed): cells of the entity tables and join tables set
/// to values of every kind, `Z_ENT`s naming other or unknown entities, rows deleted. Each is
/// opened read-only and read-write and read through objects — every property of every employee
/// and department, their relationships and what those lead to — and, read-write, changed and
/// saved. Nothing may stop the process; rows the damage did not touch read as they were saved.
@Suite struct DamagedStoreReadTests {
    typealias Stack = SQLiteStoreTests.Stack

    /// What a damaged cell becomes (SQL literals).
    static let damagedValues = [
        "NULL", "'text'", "''", "-1", "0", "999999", "3.5", "X'00FF'", "9223372036854775807", "-9223372036854775808",
        "1e308",
    ]

    /// Reads everything an app reads from an object: each property, each destination's
    /// properties, each member's name.
    static func readAll(_ object: NSManagedObject) -> Int {
        var reads = 0
        for property in object.entity.properties {
            let value = object.value(forKey: property.name)
            reads += 1
            switch value {
            case let destination as NSManagedObject:
                for other in destination.entity.properties where !(other is NSRelationshipDescription) {
                    _ = destination.value(forKey: other.name)
                    reads += 1
                }
            case let members as Set<NSManagedObject>:
                reads += members.map { $0.value(forKey: "name") }.count
            case let members as NSOrderedSet:
                reads += members.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") }.count
            default:
                break
            }
        }
        _ = object.objectIDs(forRelationshipNamed: object.entity.relationshipsByName.keys.sorted().first ?? "")
        return reads
    }

    /// Asynchronous, yielding between stores, so that its rounds do not hold one of the few
    /// cooperative threads other tests wait for.
    @Test func randomlyDamagedStoresNeverStopTheProcess() async throws {
        let folder = try TemporaryFolder()
        let original = folder.url.appendingPathComponent("Original.sqlite")
        let fill = try Stack(url: original)
        try fill.fill()
        try fill.context.performAndWait {
            let dee = try #require(try fill.objects("Manager").first)
            dee.setValue(NSOrderedSet(array: try fill.objects("Employee", "name IN {'Ann', 'Cy'}")), forKey: "reports")
            try fill.context.save()
        }
        let expected: [String: Decimal] = ["Ann": 50_000, "Bob": 70_000, "Cy": 90_000, "Dee": 120_000]
        // Every table of the store's entities and relationships, with its columns.
        let connection = try SQLiteConnection(url: original, mode: .readOnly)
        let tables = try connection.schemaObjectNames(type: "table")
            .filter { $0.hasPrefix("Z") && !["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE"].contains($0) }
            .filter { (try? Self.keys(of: $0, in: connection)) != nil }
            .map { ($0, try connection.columnNames(of: $0)) }
        #expect(tables.count >= 3)  // ZPERSON, ZDEPARTMENT, the reports join table

        var random = SplitMix64(seed: 47)
        var reads = 0, saves = 0
        for round in 0..<400 {
            await Task.yield()
            let url = folder.url.appendingPathComponent("Damaged\(round).sqlite")
            try FileManager.default.copyItem(at: original, to: url)
            let wal = URL(fileURLWithPath: original.path + "-wal")
            if FileManager.default.fileExists(atPath: wal.path) {
                try FileManager.default.copyItem(at: wal, to: URL(fileURLWithPath: url.path + "-wal"))
            }
            let damage = try SQLiteConnection(url: url, mode: .readWrite)
            var damagedNames: Set<String> = []
            var touchedDepartments = false
            for _ in 0..<(1 + random.next(below: 3)) {
                let (table, columns) = tables[random.next(below: tables.count)]
                let rows = try Self.keys(of: table, in: damage)
                guard !rows.isEmpty else { continue }
                let row = rows[random.next(below: rows.count)]
                if table == "ZPERSON" { damagedNames.insert(try Self.name(ofRow: row, in: damage)) }
                if table == "ZDEPARTMENT" { touchedDepartments = true }
                if random.next(below: 6) == 0 {
                    try damage.execute("DELETE FROM \(table) WHERE rowid = \(row)")
                } else {
                    let column = columns[random.next(below: columns.count)]
                    let value = Self.damagedValues[random.next(below: Self.damagedValues.count)]
                    // SQLite itself refuses some (a non-integer Z_PK): that damage can't happen.
                    try? damage.execute("UPDATE \(table) SET \(column) = \(value) WHERE rowid = \(row)")
                }
            }
            for readOnly in [true, false] {
                let stack: Stack
                do {
                    stack = try Stack(url: url, readOnly: readOnly)
                } catch {
                    continue  // a store that can't be opened says so; that is an answer too
                }
                try stack.context.performAndWait {
                    guard let employees = try? stack.objects("Employee"), let departments = try? stack.objects("Department")
                    else { return }
                    for object in employees + departments { reads += Self.readAll(object) }
                    // Rows the damage did not touch read as they were saved.
                    for employee in employees {
                        guard let name = employee.value(forKey: "name") as? String, !damagedNames.contains(name),
                            let salary = expected[name]
                        else { continue }
                        #expect(employee.value(forKey: "salary") as? Decimal == salary, "round \(round): \(name)")
                        if !touchedDepartments, name == "Ann" || name == "Bob" {
                            #expect(
                                (employee.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String
                                    == "Sales", "round \(round): \(name)")
                        }
                    }
                    _ = try? stack.objects("Employee", "department.title == 'Sales' OR ANY department.employees.name == 'Cy'")
                    guard !readOnly, let first = employees.first else { return }
                    first.setValue(Decimal(1), forKey: "salary")
                    stack.insert("Employee", ["name": "Eve"])
                    if (try? stack.context.save()) != nil { saves += 1 }
                }
            }
        }
        #expect(reads > 1_000)
        #expect(saves > 0)
    }

    static func keys(of table: String, in connection: SQLiteConnection) throws -> [Int64] {
        let statement = try connection.statement("SELECT rowid FROM \(table)")
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(at: 0)) }
        return keys
    }

    static func name(ofRow row: Int64, in connection: SQLiteConnection) throws -> String {
        let statement = try connection.statement("SELECT ZNAME FROM ZPERSON WHERE rowid = \(row)")
        guard try statement.step() else { return "" }
        return statement.string(at: 0) ?? ""
    }
}
