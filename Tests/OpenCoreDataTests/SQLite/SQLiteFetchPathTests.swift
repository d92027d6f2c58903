import Foundation
@testable import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

/// The statements a context's fetches run on an SQLite store, read from the store's SQL trace:
/// rows in one statement, IDs only without property values, batches by `Z_PK IN (json_each)`,
/// one statement per prefetched key path step, to-many members one query per relationship.
@Suite struct SQLiteFetchPathTests {
    typealias Stack = SQLiteStoreTests.Stack

    /// A filled company store whose connection logs statements and bound values into a capture,
    /// and a fresh context on it.
    func traced(in folder: TemporaryFolder) throws -> (Stack, NSManagedObjectContext, LogCapture) {
        let stack = try Stack(url: folder.url.appendingPathComponent("Company.sqlite"))
        try stack.fill()
        let capture = LogCapture()
        let rows = try #require((stack.store as? RowBackedPersistentStore)?.rows as? SQLiteRowStore)
        rows.trace = SQLTrace(level: 2, logger: capture.logger)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        return (stack, context, capture)
    }

    func request(_ entity: String, sort: String = "name") -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: sort, ascending: true)]
        return request
    }

    @Test func objectsComeFromOneStatementAndFaultsFillFromIt() throws {
        let folder = try TemporaryFolder()
        let (_, context, capture) = try traced(in: folder)
        let employees = try context.fetch(request("Employee"))
        // The rows only: Dee's to-many `reports` (a join table) stays a fault, as on Apple.
        #expect(capture.statements.count == 1)
        #expect(capture.statements.first?.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, ") ?? false)
        #expect(employees.map { $0.value(forKey: "name") as? String } == ["Ann", "Bob", "Cy", "Dee"])
        // Reading values fires the faults from the fetched rows, not from the store.
        #expect(capture.statements.count == 1)
        // Reading the relationship reads its members: one statement.
        #expect((employees[3].value(forKey: "reports") as? NSOrderedSet)?.count == 0)  // Dee has none here
        #expect(capture.statements.count == 2)
        #expect(capture.statements.last?.contains("REPORTSINVERSE") ?? false)
    }

    @Test func toManyMembersAreOneQueryForAllOwners() throws {
        let folder = try TemporaryFolder()
        let (_, context, capture) = try traced(in: folder)
        let prefetching = request("Department", sort: "title")
        prefetching.relationshipKeyPathsForPrefetching = ["employees"]
        let departments = try context.fetch(prefetching)
        // The rows, the employees of the three departments at once, then their rows.
        #expect(capture.statements.count == 3)
        #expect(capture.statements.dropFirst().first?.contains("IN (SELECT value FROM json_each(?))") ?? false)
        let names = departments.map { department in
            ((department.value(forKey: "employees") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }
                .sorted()
        }
        #expect(names == [[], ["Cy", "Dee"], ["Ann", "Bob"]])
        #expect(capture.statements.count == 3, "members and their rows came with the fetch")
    }

    /// Objects already loaded whose to-many is still a fault get their members in the same one
    /// query as the rest when a fetch prefetches the relationship.
    @Test func prefetchingFillsRelationshipFaultsOfLoadedObjects() throws {
        let folder = try TemporaryFolder()
        let (_, context, capture) = try traced(in: folder)
        let loaded = try context.fetch(request("Department", sort: "title"))
        #expect(loaded.compactMap { $0.value(forKey: "title") as? String } == ["Empty", "Labs", "Sales"])
        capture.clear()
        let prefetching = request("Department", sort: "title")
        prefetching.relationshipKeyPathsForPrefetching = ["employees"]
        #expect(try context.fetch(prefetching) == loaded)
        // The rows, the members of all three at once, then the members' rows.
        #expect(capture.statements.count == 3)
        let counts = loaded.map { ($0.value(forKey: "employees") as? Set<NSManagedObject>)?.count }
        #expect(counts == [0, 2, 2])
        #expect(capture.statements.count == 3)
    }

    @Test func withoutPropertyValuesOnlyKeysAreSelected() throws {
        let folder = try TemporaryFolder()
        let (_, context, capture) = try traced(in: folder)
        let ids = request("Employee")
        ids.includesPropertyValues = false
        let employees = try context.fetch(ids)
        #expect(employees.count == 4 && employees.allSatisfy(\.isFault))
        #expect(capture.statements.count == 1)
        #expect(capture.statements.first?.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT FROM ZPERSON t0") ?? false)
    }

    @Test func batchesSelectKeysThenRowsByOneBoundList() throws {
        let folder = try TemporaryFolder()
        let (_, context, capture) = try traced(in: folder)
        let batched = request("Employee")
        batched.fetchBatchSize = 3
        let employees = try context.fetch(batched)
        #expect(capture.statements.count == 1)
        #expect(capture.statements.first?.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT FROM ZPERSON t0") ?? false)
        capture.clear()
        #expect(employees[1].value(forKey: "name") as? String == "Bob")
        #expect(employees[0].value(forKey: "name") as? String == "Ann")
        #expect(employees[2].value(forKey: "name") as? String == "Cy")
        // One statement for the window of three, its keys bound as one JSON array.
        #expect(capture.statements.count == 1)
        #expect(capture.statements.first?.contains("Z_PK IN (SELECT value FROM json_each(?))") ?? false)
        let keys = employees.prefix(3).compactMap { $0.objectID.key?.primaryKey }.sorted()
        #expect(capture.messages.contains("bind[1] = '[\(keys.map(String.init).joined(separator: ","))]'"))
        capture.clear()
        #expect(employees[3].value(forKey: "name") as? String == "Dee")
        // Dee's row alone: her reports (a to-many) stay a fault.
        #expect(capture.statements.count == 1)
    }

    /// The public knob sets the process-wide level (clamped to 0…4), which connections without
    /// their own trace follow.
    @Test func sqlDebugLevelSwitchesTracingOn() throws {
        let folder = try TemporaryFolder()
        let stack = try Stack(url: folder.url.appendingPathComponent("Company.sqlite"))
        try stack.fill()
        let capture = LogCapture()
        SQLTrace.shared = SQLTrace(level: 0, logger: capture.logger)
        defer { SQLTrace.resetToLaunchSettings() }
        NSPersistentStoreCoordinator.sqlDebugLevel = 9
        #expect(NSPersistentStoreCoordinator.sqlDebugLevel == 4)
        NSPersistentStoreCoordinator.sqlDebugLevel = 1
        let request = NSFetchRequest<NSManagedObject>(entityName: "Department")
        request.predicate = NSPredicate(format: "title == 'Sales'")
        #expect(try stack.context.fetch(request).count == 1)
        #expect(capture.statements.contains { $0.hasPrefix("SELECT t0.Z_PK, 1, t0.Z_OPT, t0.ZTITLE FROM ZDEPARTMENT t0 WHERE") })
        NSPersistentStoreCoordinator.sqlDebugLevel = -1
        #expect(NSPersistentStoreCoordinator.sqlDebugLevel == 0)
    }

    @Test func prefetchingRunsOneStatementPerStep() throws {
        let folder = try TemporaryFolder()
        let (_, context, capture) = try traced(in: folder)
        let prefetching = request("Employee")
        prefetching.relationshipKeyPathsForPrefetching = ["department"]
        let employees = try context.fetch(prefetching)
        // The employees, then the two departments' rows (their to-many employees stay faults).
        #expect(capture.statements.count == 2)
        capture.clear()
        let titles = employees.map { ($0.value(forKey: "department") as? NSManagedObject)?.value(forKey: "title") as? String }
        #expect(titles == ["Sales", "Sales", "Labs", "Labs"])
        #expect(capture.statements.isEmpty, "every department filled from the prefetched rows")
    }

    /// The level-2 trace that the Stores article (`Stores.md` in the OpenCoreData DocC catalog)
    /// shows for its `Employee` fetch (`salary > 40000`, sorted by salary descending) is what the
    /// store logs, line for line (the time left out).
    @Test func readmeTraceIsWhatTheStoreLogs() throws {
        let articleURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/OpenCoreData/OpenCoreData.docc/Stores.md")
        let readme = try String(contentsOf: articleURL, encoding: .utf8)
        let start = try #require(readme.range(of: "```\nsql: "))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let shown = readme[readme.index(start.lowerBound, offsetBy: 4)..<end.lowerBound].split(separator: "\n").map(String.init)

        let employee = NSEntityDescription()
        employee.name = "Employee"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        let salary = NSAttributeDescription()
        salary.name = "salary"
        salary.attributeType = .decimalAttributeType
        employee.properties = [name, salary]
        let model = NSManagedObjectModel()
        model.entities = [employee]
        let folder = try TemporaryFolder()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.url.appendingPathComponent("Readme.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (who, pay) in [("Ann", 52_000), ("Bob", 38_000), ("Cy", 61_000)] {
            let object = NSManagedObject(entity: employee, insertInto: context)
            object.setValue(who, forKey: "name")
            object.setValue(Decimal(pay), forKey: "salary")
        }
        try context.save()
        let capture = LogCapture()
        let rows = try #require((store as? RowBackedPersistentStore)?.rows as? SQLiteRowStore)
        rows.trace = SQLTrace(level: 2, logger: capture.logger)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.predicate = NSPredicate(format: "salary > %@", 40_000 as NSNumber)
        request.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = coordinator
        #expect(try fresh.fetch(request).map { $0.value(forKey: "name") as? String } == ["Cy", "Ann"])
        func withoutTime(_ line: String) -> String { line.replacingOccurrences(of: #" in [0-9.]+ s"#, with: "", options: .regularExpression) }
        #expect(capture.messages.map(withoutTime) == shown.map(withoutTime))
    }
}
