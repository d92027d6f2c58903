import Foundation
import OpenCoreData
import Testing

/// Several stores in one coordinator: objects assigned to each, fetches merged in sort order
/// before the window applies, `affectedStores` choosing which are searched.
@Suite struct MultiStoreTests {
    let model = CompanyModel.make()

    func setUp(_ storeType: String = NSInMemoryStoreType, in folder: TemporaryFolder? = nil) throws
        -> (NSManagedObjectContext, NSPersistentStore, NSPersistentStore)
    {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let first = try coordinator.addPersistentStore(
            ofType: storeType, configurationName: "Work", at: folder?.url.appendingPathComponent("Work.sqlite"))
        let second = try coordinator.addPersistentStore(
            ofType: storeType, configurationName: nil, at: folder?.url.appendingPathComponent("All.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (index, name) in ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"].enumerated() {
            let employee = NSManagedObject(entity: model[entity: "Employee"], insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(Decimal(index * 10), forKey: "salary")
            context.assign(employee, to: index.isMultiple(of: 2) ? first : second)
        }
        try context.save()
        return (context, first, second)
    }

    func names(_ context: NSManagedObjectContext, _ configure: (NSFetchRequest<NSManagedObject>) -> Void) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        configure(request)
        return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" }
    }

    @Test func objectsGoToTheirAssignedStores() throws {
        let (context, first, second) = try setUp()
        let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee"))
        let byStore = Dictionary(grouping: all) { $0.objectID.persistentStore === first ? "first" : "second" }
        #expect(byStore["first"]?.count == 3 && byStore["second"]?.count == 3)
        #expect(all.allSatisfy { $0.objectID.persistentStore === first || $0.objectID.persistentStore === second })
    }

    @Test func resultsMergeInSortOrderBeforeTheWindow() throws {
        let (context, first, second) = try setUp()
        #expect(try names(context) { _ in } == ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"])
        #expect(try names(context) { $0.fetchOffset = 1; $0.fetchLimit = 3 } == ["Bob", "Cy", "Dee"])
        #expect(try names(context) { $0.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]; $0.fetchLimit = 2 }
            == ["Fay", "Eve"])
        #expect(try names(context) { $0.affectedStores = [first] } == ["Ann", "Cy", "Eve"])
        #expect(try names(context) { $0.affectedStores = [second]; $0.fetchLimit = 1 } == ["Bob"])
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Employee")) == 6)
    }

    @Test func anEntityOutsideAStoresConfigurationCannotBeAssignedThere() throws {
        let (context, first, _) = try setUp()
        let manager = NSManagedObject(entity: model[entity: "Manager"], insertInto: context)
        manager.setValue("Gus", forKey: "name")
        context.assign(manager, to: first)  // "Work" holds Department and Employee, not Manager
        #expect(throws: (any Error).self) { try context.save() }
    }

    /// A save to two stores is all or nothing: a conflict found in the second store leaves the
    /// first as it was, though the first had accepted its part.
    @Test(arguments: ContextFixture.storeTypes) func aSaveToTwoStoresIsAllOrNothing(_ storeType: String) throws {
        let folder = try TemporaryFolder()
        let (context, first, second) = try setUp(storeType, in: folder)
        let coordinator = try #require(context.persistentStoreCoordinator)
        func employee(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "name == %@", name)
            return try #require(try context.fetch(request).first)
        }
        let ann = try employee("Ann", in: context)
        let bob = try employee("Bob", in: context)
        #expect(ann.objectID.persistentStore === first && bob.objectID.persistentStore === second)
        _ = ann.value(forKey: "salary")
        _ = bob.value(forKey: "salary")

        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = coordinator
        try employee("Bob", in: other).setValue(Decimal(11), forKey: "salary")
        try other.save()

        ann.setValue(Decimal(1), forKey: "salary")  // the first store's part: no conflict
        bob.setValue(Decimal(2), forKey: "salary")  // the second's: Bob changed since fetched
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSManagedObjectMergeError)

        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = coordinator
        #expect(try employee("Ann", in: fresh).value(forKey: "salary") as? Decimal == 0)
        #expect(try employee("Bob", in: fresh).value(forKey: "salary") as? Decimal == 11)
        #expect(ann.value(forKey: "salary") as? Decimal == 1 && context.hasChanges)
        // Both stores take saves again afterwards (nothing left locked or open).
        context.rollback()
        try employee("Ann", in: fresh).setValue(Decimal(5), forKey: "salary")
        try employee("Bob", in: fresh).setValue(Decimal(6), forKey: "salary")
        try fresh.save()
    }
}

@Suite struct ExecuteAndKeyPathTests {
    @Test(arguments: ContextFixture.storeTypes) func executeRunsInTheCurrentContext(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let names = try fixture.context.performAndWait {
            try fixture.request("Employee", "salary > 60000", sort: [("name", true)]).execute().map { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["Bob", "Cy", "Dee"])
        #expect(throws: (any Error).self) { try fixture.request("Employee").execute() }
    }

    @Test(arguments: ContextFixture.storeTypes) func valueForKeyPath(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let cy = try #require(try fixture.context.fetch(fixture.request("Employee", "name == 'Cy'")).first)
        #expect(cy.value(forKeyPath: "department.title") as? String == "Labs")
        #expect(cy.value(forKeyPath: "name") as? String == "Cy")
        let labs = try #require(cy.value(forKey: "department") as? NSManagedObject)
        #expect((labs.value(forKeyPath: "employees.@count") as? NSNumber)?.intValue == 2)
        #expect((labs.value(forKeyPath: "employees.@max.salary") as? Decimal) == 120_000)
    }
}
