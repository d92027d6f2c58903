import Foundation
import OpenCoreData
import TestSupport
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
            ofType: storeType, configurationName: "Work", at: try folder?.storeURL(for: storeType, name: "Work.sqlite"))
        let second = try coordinator.addPersistentStore(
            ofType: storeType, configurationName: nil, at: try folder?.storeURL(for: storeType, name: "All.sqlite"))
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
        #expect(
            try names(context) {
                $0.fetchOffset = 1; $0.fetchLimit = 3
            } == ["Bob", "Cy", "Dee"])
        #expect(
            try names(context) {
                $0.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]; $0.fetchLimit = 2
            }
                == ["Fay", "Eve"])
        #expect(try names(context) { $0.affectedStores = [first] } == ["Ann", "Cy", "Eve"])
        #expect(
            try names(context) {
                $0.affectedStores = [second]; $0.fetchLimit = 1
            } == ["Bob"])
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Employee")) == 6)
    }

    /// Unsaved changes count only in their own store: an object changed or inserted for the
    /// first store is not among the results of a fetch limited to the second.
    @Test(arguments: ContextFixture.storeTypes)
    func pendingChangesStayInTheirStore(_ storeType: String) throws {
        let folder = try TemporaryFolder()
        let (context, first, second) = try setUp(storeType, in: folder)
        let ann = try #require(
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Employee")).first {
                $0.value(forKey: "name") as? String == "Ann"
            })
        ann.setValue(Decimal(1), forKey: "salary")
        let gus = NSManagedObject(entity: model[entity: "Employee"], insertInto: context)
        gus.setValue("Gus", forKey: "name")
        context.assign(gus, to: first)
        #expect(try names(context) { $0.affectedStores = [second] } == ["Bob", "Dee", "Fay"])
        #expect(
            try names(context) {
                $0.affectedStores = [second]; $0.predicate = NSPredicate(format: "salary < 5")
            } == [])
        #expect(try names(context) { $0.affectedStores = [first] } == ["Ann", "Cy", "Eve", "Gus"])
        #expect(
            try context.count(
                for: {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
                    request.affectedStores = [second]
                    return request
                }()) == 3)
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
            try fixture.request("Employee", "salary > 60000", sort: [("name", true)]).execute().map {
                $0.value(forKey: "name") as? String
            }
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

/// Random fetches across two stores of one coordinator, of both types: 60 employees saved into
/// one store or the other, then unsaved changes (inserts assigned to either store, changed
/// salaries and names, deletes), and requests with predicates, sorts ending with the name,
/// limits, offsets and `affectedStores`. Each must give what the test works out from the objects
/// themselves: the results of both stores merged in sort order before the window applies.
@Suite struct RandomMultiStoreTests {
    @Test(arguments: ContextFixture.storeTypes)
    func randomFetchesAcrossStores(_ storeType: String) throws {
        let model = CompanyModel.make()
        let folder = try TemporaryFolder()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let stores = try ["Work", "All"].map { name in
            try coordinator.addPersistentStore(
                ofType: storeType, configurationName: name == "Work" ? "Work" : nil,
                at: try folder.storeURL(for: storeType, name: "\(name).sqlite"))
        }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var random = SplitMix64(seed: 77)
        func int(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
        var people: [(object: NSManagedObject, store: Int)] = []
        func insert(_ serial: Int) {
            let store = int(2)
            let employee = NSManagedObject(entity: model[entity: "Employee"], insertInto: context)
            employee.setValue("E\(serial)", forKey: "name")
            employee.setValue(int(6) == 0 ? nil : Decimal(int(8) * 1_000), forKey: "salary")
            employee.setValue(int(5) == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(int(5) * 86_400)), forKey: "born")
            context.assign(employee, to: stores[store])
            people.append((employee, store))
        }
        for serial in 0..<60 { insert(serial) }
        try context.save()
        var compared = 0
        for round in 0..<2 {
            if round == 1 {
                for serial in 60..<70 { insert(serial) }
                for (object, _) in people where object.managedObjectContext != nil && !object.isDeleted {
                    switch int(8) {
                    case 0: context.delete(object)
                    case 1: object.setValue(Decimal(int(8) * 1_000), forKey: "salary")
                    case 2: object.setValue("F\(int(1_000))-\(object.value(forKey: "name") as? String ?? "")", forKey: "name")
                    default: break
                    }
                }
            }
            for index in 0..<80 {
                let format = [
                    "TRUEPREDICATE", "salary > 3000", "salary <= 2000 OR salary == nil", "born == nil", "name BEGINSWITH 'F'",
                    "born >= CAST(172800, 'NSDate') AND salary != 5000",
                ][int(6)]
                let sort: [(String, Bool)] =
                    [[("salary", true)], [("born", false), ("salary", true)], [], [("salary", false)]][int(4)] + [
                        ("name", int(2) == 0)
                    ]
                let (limit, offset) = [(0, 0), (5, 0), (7, 3), (0, 50), (3, 66)][int(5)]
                let affected = [[0, 1], [0], [1]][int(3)]
                let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
                request.predicate = NSPredicate(format: format)
                request.sortDescriptors = sort.map { NSSortDescriptor(key: $0.0, ascending: $0.1) }
                request.fetchLimit = limit
                request.fetchOffset = offset
                request.affectedStores = affected.map { stores[$0] }
                let predicate = NSPredicate(format: format)
                let current = people.filter {
                    $0.object.managedObjectContext != nil && !$0.object.isDeleted && affected.contains($0.store)
                        && predicate.evaluate(with: $0.object)
                }.map(\.object)
                let ordered = current.sorted { left, right in
                    for (key, ascending) in sort {
                        let order = RandomFetchTests.compare(left.value(forKey: key), right.value(forKey: key))
                        if order != .orderedSame { return (order == .orderedAscending) == ascending }
                    }
                    return false
                }
                let names = ordered.map(RandomFetchTests.label)
                let start = min(offset, names.count)
                let expected = Array(names[start..<(limit > 0 ? min(names.count, start + limit) : names.count)])
                let label = "\(storeType) round \(round) #\(index) \(format) \(sort) \(limit)/\(offset) stores \(affected)"
                let fetched = try context.fetch(request).map(RandomFetchTests.label)
                #expect(fetched == expected, "\(label)")
                #expect(try context.count(for: request) == expected.count, "\(label) count")
                compared += expected.isEmpty ? 0 : 1
            }
        }
        #expect(compared > 80)
    }
}
