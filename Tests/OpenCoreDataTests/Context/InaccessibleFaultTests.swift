import Foundation
import OpenCoreData
import OpenSQLStore
import OpenSQLiteStore
import TestSupport
import Testing

/// Faults that cannot be loaded never stop the process: a row deleted by another coordinator,
/// process or server reads as a deleted object with nil values (Apple's
/// `shouldDeleteInaccessibleFaults`), or, with that off, is reported; a store that fails while a
/// fault fires (a locked SQLite file, a PostgreSQL server that went away) leaves a fault whose
/// values read as nil and an error the next save throws, and no value is saved over the row's.
@Suite struct InaccessibleFaultTests {
    /// A second coordinator on the fixture's store (another process or server), or for the
    /// in-memory store a second context on the same coordinator.
    static func elsewhere(_ fixture: ContextFixture, storeType: String) throws -> NSManagedObjectContext {
        guard storeType != NSInMemoryStoreType, let url = fixture.store.url else { return fixture.freshContext() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
        _ = try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A new object of `entity` with `values`.
    @discardableResult
    static func insert(
        _ entity: String, _ values: [String: Any], model: NSManagedObjectModel, into context: NSManagedObjectContext
    ) -> NSManagedObject {
        let object = NSManagedObject(entity: model[entity: entity], insertInto: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    /// The ID of the saved employee with this name, fetched without loading the object.
    static func id(of name: String, in context: NSManagedObjectContext) throws -> NSManagedObjectID {
        let request = NSFetchRequest<NSManagedObjectID>(entityName: "Employee")
        request.resultType = .managedObjectIDResultType
        request.predicate = NSPredicate(format: "name == %@", name)
        return try #require(try context.fetch(request).first)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func aRowDeletedElsewhereReadsAsADeletedObjectAndTheContextSavesItsOtherChanges(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let other = try Self.elsewhere(fixture, storeType: storeType)
        try context.performAndWait {
            #expect(context.shouldDeleteInaccessibleFaults)
            let ann = context.object(with: try Self.id(of: "Ann", in: context))
            // Cy is loaded; its department (Labs) is a fault until read.
            let cy = try ContextFixture.employee("Cy", in: context)
            let bob = try ContextFixture.employee("Bob", in: context)
            try other.performAndWait {
                other.delete(try ContextFixture.employee("Ann", in: other))
                other.delete(try ContextFixture.department("Labs", in: other))  // Cy and Dee go with it
                try other.save()
            }
            #expect(ann.isFault)
            #expect(ann.value(forKey: "name") == nil)
            #expect(ann.value(forKey: "salary") == nil)
            #expect(ann.value(forKey: "department") == nil)
            #expect(ann.isDeleted && !ann.isFault)
            #expect(!context.deletedObjects.contains(ann))
            let labs = try #require(cy.value(forKey: "department") as? NSManagedObject)
            #expect(labs.value(forKey: "title") == nil)
            #expect((labs.value(forKey: "employees") as? Set<NSManagedObject>)?.isEmpty == true)
            #expect(labs.isDeleted)
            // A deleted object's ID names no object any more.
            #expect(throws: (any Error).self) { try context.existingObject(with: ann.objectID) }
            // Deleting it again, or changing it, saves nothing for it; the other changes save.
            context.delete(ann)
            bob.setValue(Decimal(75_000), forKey: "salary")
            try context.save()
        }
        try other.performAndWait { () throws -> Void in
            other.refreshAllObjects()
            #expect(try ContextFixture.employee("Bob", in: other).value(forKey: "salary") as? Decimal == 75_000)
            #expect(try other.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Employee")) == 1)
        }
    }

    @Test(arguments: ContextFixture.storeTypes)
    func withoutDeletingInaccessibleFaultsTheFailureIsReportedInsteadOfStoppingTheProcess(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let other = try Self.elsewhere(fixture, storeType: storeType)
        try context.performAndWait {
            context.shouldDeleteInaccessibleFaults = false
            let annID = try Self.id(of: "Ann", in: context)
            let ann = context.object(with: annID)
            let bob = try ContextFixture.employee("Bob", in: context)
            try other.performAndWait {
                other.delete(try ContextFixture.employee("Ann", in: other))
                try other.save()
            }
            #expect(ann.value(forKey: "name") == nil)
            #expect(ann.isFault && !ann.isDeleted)
            #expect {
                try context.existingObject(with: annID)
            } throws: { ($0 as NSError).code == NSManagedObjectReferentialIntegrityError }
            bob.setValue(Decimal(71_000), forKey: "salary")
            // The next save reports the fault that could not be fulfilled, and writes nothing.
            #expect {
                try context.save()
            } throws: { error in
                let error = error as NSError
                return error.code == NSManagedObjectReferentialIntegrityError
                    && (error.userInfo[NSAffectedObjectsErrorKey] as? [NSManagedObject])?.first === ann
            }
            #expect(bob.isUpdated)
            try context.save()
        }
        try other.performAndWait { () throws -> Void in
            other.refreshAllObjects()
            #expect(try ContextFixture.employee("Bob", in: other).value(forKey: "salary") as? Decimal == 71_000)
        }
    }

    /// What a test that fails a fault saw, read on the context's queue (the waits for the store
    /// block that queue, not one of Swift's few cooperative threads) and checked afterwards.
    struct Observed {
        var nameWhileUnreachable: Any?
        var faultWhileUnreachable = false
        var deletedWhileUnreachable = true
        var existingObjectThrew = false
        var firstSave: NSError?
        var savedAfterwards = false
        var nameAfterwards: Any?
        var reportsWhileUnreachable: Int?
        var seniorsWhileUnreachable: Int?
        var seniorsAfterwards: Int?
    }

    /// A locked SQLite file while a fault fires: nil values, the error at the next save, and once
    /// the lock is gone a value set meanwhile saves beside the row's others, which are kept.
    @Test func aLockedSQLiteFileWhileAFaultFiresIsReportedAndLosesNothing() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Locked.sqlite")
        let model = CompanyModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSSQLitePragmasOption: ["journal_mode": "DELETE" as NSString]])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let observed = try await context.perform { () throws -> Observed in
            var observed = Observed()
            let labs = Self.insert("Department", ["title": "Labs"], model: model, into: context)
            Self.insert("Employee", ["name": "Ann", "salary": Decimal(150_000), "department": labs], model: model, into: context)
            Self.insert("Employee", ["name": "Bo", "salary": Decimal(200_000), "department": labs], model: model, into: context)
            try context.save()
            context.reset()
            let fault = context.object(with: try Self.id(of: "Ann", in: context))
            let department = try ContextFixture.department("Labs", in: context)
            let lock = try SQLiteConnection(url: url, mode: .readWrite)
            try lock.execute("BEGIN EXCLUSIVE")
            // A fetched property (a fetch of its own) while the file is locked: empty, not kept.
            observed.seniorsWhileUnreachable = (department.value(forKey: "seniors") as? [Any])?.count
            observed.nameWhileUnreachable = fault.value(forKey: "name")  // after the store's busy timeout
            observed.faultWhileUnreachable = fault.isFault
            observed.deletedWhileUnreachable = fault.isDeleted
            fault.setValue(Decimal(1), forKey: "salary")
            try lock.execute("ROLLBACK")
            // Bo; Ann's unsaved salary of 1 leaves her out.
            observed.seniorsAfterwards = (department.value(forKey: "seniors") as? [Any])?.count
            do {
                try context.save()
            } catch {
                observed.firstSave = error as NSError
            }
            try context.save()
            observed.savedAfterwards = true
            observed.nameAfterwards = fault.value(forKey: "name")
            return observed
        }
        #expect(observed.nameWhileUnreachable == nil)
        #expect(observed.faultWhileUnreachable && !observed.deletedWhileUnreachable)
        #expect(observed.seniorsWhileUnreachable == 0)
        #expect(observed.seniorsAfterwards == 1)
        let firstSave = try #require(observed.firstSave, "the save after a fault failed must report it")
        #expect(firstSave.userInfo[NSUnderlyingErrorKey] != nil)
        #expect((firstSave.userInfo[NSAffectedObjectsErrorKey] as? [NSManagedObject])?.isEmpty == false)
        #expect(observed.savedAfterwards)
        #expect(observed.nameAfterwards as? String == "Ann")
        let check = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        check.persistentStoreCoordinator = coordinator
        try check.performAndWait {
            let ann = try ContextFixture.employee("Ann", in: check)
            #expect(ann.value(forKey: "name") as? String == "Ann")
            #expect(ann.value(forKey: "salary") as? Decimal == 1)
        }
    }

    /// A PostgreSQL server that goes away while a fault fires (a proxy in front of the test
    /// server, cut): no crash, nil values, the error visible; once it is back, nothing was lost.
    @Test(.postgreSQLServer)
    func aPostgreSQLServerThatGoesAwayWhileAFaultFiresIsReportedAndLosesNothing() async throws {
        let direct = try PostgresTestServer.freshStoreURL()
        defer { PostgresTestServer.destroy(direct) }
        var components = try #require(URLComponents(url: direct, resolvingAgainstBaseURL: false))
        let proxy = try TCPProxy(upstreamPort: UInt16(components.port ?? 5432))
        components.host = "127.0.0.1"
        components.port = Int(proxy.port)
        let proxied = try #require(components.url)
        let model = CompanyModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(
            ofType: NSPostgreSQLStoreType, configurationName: nil, at: proxied, options: [NSPersistentStoreTimeoutOption: 2])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let observed = try await context.perform { () throws -> Observed in
            var observed = Observed()
            let ann = Self.insert("Employee", ["name": "Ann", "salary": Decimal(50_000)], model: model, into: context)
            Self.insert("Manager", ["name": "Dee", "reports": NSOrderedSet(array: [ann])], model: model, into: context)
            try context.save()
            context.reset()
            let annID = try Self.id(of: "Ann", in: context)
            let fault = context.object(with: annID)
            // Dee is loaded, her reports (a join table) not yet read.
            let manager = try ContextFixture.employee("Dee", in: context)
            proxy.stop()
            observed.reportsWhileUnreachable = (manager.value(forKey: "reports") as? NSOrderedSet)?.count
            manager.setValue(Decimal(9), forKey: "salary")
            observed.nameWhileUnreachable = fault.value(forKey: "name")
            observed.faultWhileUnreachable = fault.isFault
            observed.deletedWhileUnreachable = fault.isDeleted
            do {
                _ = try context.existingObject(with: annID)
            } catch {
                observed.existingObjectThrew = true
            }
            fault.setValue(Decimal(7), forKey: "salary")
            try proxy.start()
            do {
                try context.save()
            } catch {
                observed.firstSave = error as NSError
            }
            // The pool reconnects; until it has, a save fails and writes nothing.
            for _ in 0..<30 where !observed.savedAfterwards {
                do {
                    try context.save()
                    observed.savedAfterwards = true
                } catch {
                    Thread.sleep(forTimeInterval: 0.5)
                }
            }
            return observed
        }
        #expect(observed.reportsWhileUnreachable == 0)
        #expect(observed.nameWhileUnreachable == nil)
        #expect(observed.faultWhileUnreachable && !observed.deletedWhileUnreachable)
        #expect(observed.existingObjectThrew)
        #expect(observed.firstSave?.userInfo[NSUnderlyingErrorKey] != nil)
        #expect(observed.savedAfterwards)
        let checker = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        _ = try checker.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: direct)
        let check = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        check.persistentStoreCoordinator = checker
        try check.performAndWait {
            let ann = try ContextFixture.employee("Ann", in: check)
            #expect(ann.value(forKey: "name") as? String == "Ann")
            #expect(ann.value(forKey: "salary") as? Decimal == 7)
            // The reports that could not be read were not saved as none.
            let dee = try ContextFixture.employee("Dee", in: check)
            #expect(dee.value(forKey: "salary") as? Decimal == 9)
            #expect(ContextFixture.names(dee.value(forKey: "reports")) == ["Ann"])
        }
    }

    /// Damaged to-one keys in an SQLite store (a key naming no row, a key stored as text): reading
    /// the relationship never stops the process, read-only or read-write; the destination reads
    /// as a deleted object with nil values. A row of a table of one entity whose `Z_ENT` names
    /// another entity still reads as the table's entity: fetches select the entity's number in
    /// place of the column, as Apple's do.
    @Test(arguments: [true, false])
    func damagedToOneKeysReadAsInaccessibleFaults(_ readOnly: Bool) throws {
        typealias Stack = SQLiteStoreTests.Stack
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Damaged.sqlite")
        try Stack(url: url).fill()
        let connection = try SQLiteConnection(url: url, mode: .readWrite)
        try connection.execute(
            """
            UPDATE ZPERSON SET ZDEPARTMENT = 999 WHERE ZNAME = 'Ann';
            UPDATE ZPERSON SET ZDEPARTMENT = 'abc' WHERE ZNAME = 'Bob';
            UPDATE ZDEPARTMENT SET Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Employee') WHERE ZTITLE = 'Labs';
            UPDATE ZPERSON SET ZDEPARTMENT = (SELECT Z_PK FROM ZDEPARTMENT WHERE ZTITLE = 'Empty') + 100 WHERE ZNAME = 'Dee';
            """)
        let stack = try Stack(url: url, readOnly: readOnly)
        try stack.context.performAndWait {
            var titles: [String: String] = [:]
            for employee in try stack.objects("Employee", sort: [("name", true)]) {
                let name = employee.value(forKey: "name") as? String ?? "?"
                let department = employee.value(forKey: "department") as? NSManagedObject
                titles[name] = department.map { ($0.value(forKey: "title") as? String) ?? "nil" } ?? "none"
                if let department, department.value(forKey: "title") == nil { #expect(department.isDeleted, "\(name)") }
            }
            #expect(titles["Ann"] == "nil")
            #expect(["none", "nil"].contains(titles["Bob"]))
            #expect(titles["Cy"] == "Labs")
            #expect(titles["Dee"] == "nil")
            if !readOnly {
                // The context still saves.
                let eve = stack.insert("Employee", ["name": "Eve"])
                try stack.context.save()
                #expect(!eve.isInserted)
            }
        }
    }
}
