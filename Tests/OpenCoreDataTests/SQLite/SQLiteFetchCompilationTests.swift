import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import Testing

/// Fetch requests through the coordinator: the SQLite store (predicates, sorts and windows
/// compiled to SQL, or the in-memory fallback) and the in-memory store answer alike.
@Suite struct SQLiteFetchCompilationTests {
    typealias Stack = SQLiteStoreTests.Stack

    /// Fills a stack with accented names, NULL salaries and dates, and a person with no department.
    static func fill(_ stack: Stack) throws {
        let sales = stack.insert("Department", ["title": "Sales"])
        let labs = stack.insert("Department", ["title": "Labs"])
        stack.insert("Department", ["title": "Pâtisserie"])
        let born = Date(timeIntervalSinceReferenceDate: 0)
        let people: [(String, String, Decimal?, NSManagedObject?, Date?)] = [
            ("Employee", "Ann", 50_000, sales, born), ("Employee", "bob", nil, sales, nil),
            ("Employee", "Crèpes Suzette", 70_000, labs, born.addingTimeInterval(86_400)),
            ("Employee", "Gaufres de Liège", 90_000, nil, born.addingTimeInterval(-86_400)),
            ("Employee", "crepes", nil, labs, nil), ("Manager", "Dee", 120_000, labs, born),
            ("Manager", "CRÊPE", 80_000, nil, nil),
        ]
        for (entity, name, salary, department, date) in people {
            var values: [String: Any] = ["name": name]
            if let salary { values["salary"] = salary }
            if let department { values["department"] = department }
            if let date { values["born"] = date }
            stack.insert(entity, values)
        }
        try stack.context.save()
    }

    static let cases: [(entity: String, format: String, sort: [(String, Bool)])] = [
        ("Employee", "name BEGINSWITH[cd] 'crepe'", [("name", true)]),
        ("Employee", "name ENDSWITH[cd] 'LIEGE'", []),
        ("Employee", "NOT (salary > 60000)", [("name", false)]),
        ("Employee", "salary BETWEEN {60000, 100000}", [("salary", true)]),
        ("Employee", "salary == nil OR born == nil", [("name", true)]),
        ("Employee", "department.title ==[c] 'labs'", [("name", true)]),
        ("Employee", "NOT (department.title == 'Labs')", [("department.title", true), ("name", true)]),
        ("Employee", "name IN[c] {'ann', 'BOB', 'dee'}", [("name", true)]),
        ("Manager", "name LIKE[cd] 'crep*'", []),
        ("Person", "born < %@", [("born", false), ("name", true)]),
        ("Department", "ANY employees.name BEGINSWITH[cd] 'crepe'", [("title", true)]),
        ("Department", "employees.@count > 1", [("title", true)]),
        ("Department", "ALL employees.salary > 60000", [("title", true)]),
        ("Department", "SUBQUERY(employees, $e, $e.salary == nil).@count == 0", [("title", false)]),
        ("Employee", "department.employees.@avg.salary > salary", [("name", true)]),
    ]

    @Test(arguments: cases.indices)
    func sqliteAnswersAsInMemory(_ index: Int) throws {
        let (entity, format, sort) = Self.cases[index]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fetchcompile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try Stack(url: folder.appendingPathComponent("Company.sqlite"))
        let memory = try Stack(type: NSInMemoryStoreType, url: nil)
        try Self.fill(sqlite)
        try Self.fill(memory)
        let arguments: [Any] = format.contains("%@") ? [Date(timeIntervalSinceReferenceDate: 1)] : []
        for (limit, offset) in [(0, 0), (2, 0), (0, 1), (2, 1)] {
            func answers(_ stack: Stack) throws -> ([String], Int) {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.predicate = NSPredicate(format: format, argumentArray: arguments)
                request.sortDescriptors = sort.map { NSSortDescriptor(key: $0.0, ascending: $0.1) }
                request.fetchLimit = limit
                request.fetchOffset = offset
                let key = entity == "Department" ? "title" : "name"
                let names = try stack.context.fetch(request).map { $0.value(forKey: key) as? String ?? "?" }
                return (names, try stack.context.count(for: request))
            }
            let expected = try answers(memory)
            let actual = try answers(sqlite)
            #expect(actual.0 == expected.0, "\(format) \(limit)/\(offset)")
            #expect(actual.1 == expected.1, "\(format) \(limit)/\(offset) count")
        }
    }

    @Test func objectConstantsCompileToKeys() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fetchcompile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try Stack(url: folder.appendingPathComponent("Company.sqlite"))
        try Self.fill(sqlite)
        let labs = try #require(try sqlite.objects("Department", "title == 'Labs'").first)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: "department == %@", labs)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(
            try sqlite.context.fetch(request).compactMap { $0.value(forKey: "name") as? String } == [
                "Crèpes Suzette", "Dee", "crepes",
            ])
        request.predicate = NSPredicate(format: "department IN %@", [labs.objectID])
        #expect(try sqlite.context.count(for: request) == 3)
    }

    /// Parts Apple's SQL store cannot run fail `context.fetch` with
    /// `NSPersistentStoreUnsupportedRequestTypeError`, naming the part, instead of running in memory.
    @Test func unsupportedPartsFailTheFetch() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fetchcompile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try Stack(url: folder.appendingPathComponent("Company.sqlite"))
        try Self.fill(sqlite)
        let comparator = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        comparator.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true) { _, _ in .orderedSame }]
        let block = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        block.predicate = NSPredicate { _, _ in true }
        let twoToMany = NSFetchRequest<NSManagedObject>(entityName: "Department")
        twoToMany.predicate = NSPredicate(format: "ANY employees.department.employees.name == 'Ann'")
        let cases: [(NSFetchRequest<NSManagedObject>, [String])] = [
            (comparator, ["name", "comparator"]), (block, ["block"]),
            (twoToMany, ["employees.department.employees.name", "two to-many"]),
        ]
        for (request, parts) in cases {
            do {
                _ = try sqlite.context.fetch(request)
                Issue.record("\(parts): the fetch ran")
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
                for part in parts { #expect(error.localizedDescription.contains(part), "\(error.localizedDescription)") }
            }
        }
    }
}
