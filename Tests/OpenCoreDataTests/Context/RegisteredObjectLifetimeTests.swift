import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

/// A context holds its unchanged objects weakly (`retainsRegisteredObjects` false, Apple's
/// default): fetched objects the caller drops are freed and leave `registeredObjects`; objects
/// with unsaved changes stay until saved or discarded; while an object lives, its ID gives the
/// same instance.
@Suite struct RegisteredObjectLifetimeTests {
    /// A weak reference, to see whether an object was freed.
    final class Probe {
        weak var object: NSManagedObject?
        init(_ object: NSManagedObject?) { self.object = object }
    }

    /// The fixture with `extra` more employees saved (in Sales).
    static func fixture(_ storeType: String, extra: Int) throws -> ContextFixture {
        let fixture = try ContextFixture(storeType: storeType)
        let sales = try ContextFixture.department("Sales", in: fixture.context)
        for index in 0..<extra {
            fixture.insert("Employee", ["name": "E\(index)", "salary": Decimal(index), "department": sales])
        }
        try fixture.context.save()
        return fixture
    }

    /// Fetches every employee into `context`, fires the first, and keeps nothing but weak
    /// references and IDs.
    static func fetchAndDrop(_ context: NSManagedObjectContext, fixture: ContextFixture) throws -> (
        probes: [Probe], ids: [NSManagedObjectID], registeredWhileHeld: Int
    ) {
        let objects = try context.fetch(fixture.request("Employee"))
        _ = objects.first?.value(forKey: "name")
        return (objects.map(Probe.init), objects.map(\.objectID), context.registeredObjects.count)
    }

    @Test(arguments: ContextFixture.storeTypes) func droppedUnchangedObjectsAreFreed(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType, extra: 2_000)
        let context = fixture.freshContext()
        let (probes, ids, registeredWhileHeld) = try Self.fetchAndDrop(context, fixture: fixture)
        #expect(ids.count == 2_004 && registeredWhileHeld == 2_004)
        #expect(probes.allSatisfy { $0.object == nil })
        #expect(context.registeredObjects.isEmpty)
        let first = try #require(ids.first)
        #expect(context.registeredObject(for: first) == nil)
        // A new instance for the ID: a fault again (the freed one had fired).
        let again = context.object(with: first)
        #expect(again.isFault && context.registeredObjects.count == 1)
        #expect(again.value(forKey: "name") as? String != nil)
        // Fetching again registers every object anew, and the same ID gives the same instance.
        let refetched = try context.fetch(fixture.request("Employee"))
        #expect(refetched.count == 2_004 && context.registeredObjects.count == 2_004)
        #expect(refetched.contains { $0 === again })
        #expect(context.object(with: refetched[7].objectID) === refetched[7])
        #expect(try context.existingObject(with: refetched[9].objectID) === refetched[9])
    }

    @Test(arguments: ContextFixture.storeTypes) func objectsWithUnsavedChangesStayUntilSaved(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType, extra: 50)
        let context = fixture.freshContext()
        var probes: [String: Probe] = [:]
        do {
            let objects = try context.fetch(fixture.request("Employee", sort: [("name", true)]))
            let updated = try #require(objects.first { $0.value(forKey: "name") as? String == "E1" })
            updated.setValue(Decimal(7), forKey: "salary")
            let deleted = try #require(objects.first { $0.value(forKey: "name") as? String == "E2" })
            context.delete(deleted)
            let inserted = NSManagedObject(entity: fixture.model[entity: "Employee"], insertInto: context)
            inserted.setValue("New", forKey: "name")
            let unchanged = try #require(objects.first { $0.value(forKey: "name") as? String == "E3" })
            probes = [
                "updated": Probe(updated), "deleted": Probe(deleted), "inserted": Probe(inserted), "unchanged": Probe(unchanged),
            ]
        }
        #expect(probes["unchanged"]?.object == nil)
        do {
            let updated = try #require(probes["updated"]?.object)
            #expect(updated.value(forKey: "salary") as? Decimal == 7 && context.updatedObjects == [updated])
        }
        #expect(probes["deleted"]?.object?.isDeleted == true && probes["inserted"]?.object?.isInserted == true)
        // The three, and the department the updated one references (its fired to-one).
        #expect(context.registeredObjects.count == 4)
        #expect(context.registeredObjects.filter { $0.entity.name == "Department" }.count == 1)
        try context.save()
        #expect(probes["inserted"]?.object == nil && probes["deleted"]?.object == nil)
        // Deleting E2 took it out of its department's employees, which fired them: the
        // department and its employees now reference each other, as on Apple, until refreshed.
        #expect(probes["updated"]?.object != nil)
        context.refreshAllObjects()
        #expect(probes.values.allSatisfy { $0.object == nil })
        #expect(context.registeredObjects.isEmpty)
        // The saved values are the store's.
        #expect(try fixture.names("Employee", "name IN {'E1', 'E2', 'New'}") == ["E1", "New"])
    }

    @Test(arguments: ContextFixture.storeTypes) func rollbackLetsChangedObjectsGo(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType, extra: 10)
        let context = fixture.freshContext()
        let probe = Probe(nil)
        do {
            let object = try #require(try context.fetch(fixture.request("Employee", "name == 'E4'")).first)
            object.setValue(Decimal(1), forKey: "salary")
            probe.object = object
        }
        #expect(probe.object != nil)
        context.rollback()
        #expect(probe.object == nil && context.registeredObjects.isEmpty)
    }

    @Test(arguments: ContextFixture.storeTypes) func retainsRegisteredObjectsKeepsThem(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType, extra: 500)
        let context = fixture.freshContext()
        #expect(context.retainsRegisteredObjects == false)
        context.retainsRegisteredObjects = true
        let (probes, ids, _) = try Self.fetchAndDrop(context, fixture: fixture)
        #expect(probes.allSatisfy { $0.object != nil })
        #expect(context.registeredObjects.count == 504)
        let first = try #require(ids.first)
        #expect(context.registeredObject(for: first) === probes.first?.object)
        #expect(context.object(with: first).isFault == false)
        // Turned off, the context lets go of them.
        context.retainsRegisteredObjects = false
        #expect(probes.allSatisfy { $0.object == nil } && context.registeredObjects.isEmpty)
        // Turned on with objects registered, it keeps those too.
        let held = try context.fetch(fixture.request("Employee"))
        let heldProbes = held.map(Probe.init)
        context.retainsRegisteredObjects = true
        _ = consume held
        #expect(heldProbes.allSatisfy { $0.object != nil } && context.registeredObjects.count == 504)
        context.reset()
        #expect(heldProbes.allSatisfy { $0.object == nil } && context.registeredObjects.isEmpty)
    }

    @Test(arguments: ContextFixture.storeTypes) func relationshipsKeepTheirDestinations(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType, extra: 20)
        let context = fixture.freshContext()
        let departmentProbe = Probe(nil)
        var employeeProbes: [Probe] = []
        var sales: NSManagedObject?
        do {
            let ann = try ContextFixture.employee("Ann", in: context)
            // A fired to-one relationship holds its destination while the source lives.
            let department = try #require(ann.value(forKey: "department") as? NSManagedObject)
            departmentProbe.object = department
            // A fired to-many relationship holds its members, as Apple's sets do.
            let members = try #require(department.value(forKey: "employees") as? Set<NSManagedObject>)
            employeeProbes = members.map(Probe.init)
            sales = department
        }
        #expect(departmentProbe.object != nil && employeeProbes.count == 22)
        #expect(employeeProbes.allSatisfy { $0.object != nil })
        // The department and its members reference each other (as on Apple, a cycle):
        // refreshing the department without its changes breaks it.
        if let sales { context.refresh(sales, mergeChanges: false) }
        sales = nil
        for probe in employeeProbes { if let employee = probe.object { context.refresh(employee, mergeChanges: false) } }
        #expect(departmentProbe.object == nil)
        #expect(employeeProbes.allSatisfy { $0.object == nil })
        #expect(context.registeredObjects.isEmpty)
    }

    @Test(arguments: ContextFixture.storeTypes) func batchedFetchesLetDroppedObjectsGo(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType, extra: 300)
        let context = fixture.freshContext()
        var probes: [Probe] = []
        do {
            let request = fixture.request("Employee", sort: [("name", true)])
            request.fetchBatchSize = 50
            let objects = try context.fetch(request)
            // Touch every window, so every batch loads.
            #expect(objects.compactMap { $0.value(forKey: "name") as? String }.count == 304)
            probes = objects.map(Probe.init)
            #expect(context.registeredObjects.count == 304)
        }
        #expect(probes.allSatisfy { $0.object == nil } && context.registeredObjects.isEmpty)
    }

    @Test(arguments: ContextFixture.storeTypes) func aParentKeepsWhatAChildSavedIntoIt(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType, extra: 10)
        let parent = fixture.freshContext()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        let probe = Probe(nil)
        let childProbe = Probe(nil)
        try child.performAndWait {
            let object = try #require(try child.fetch(fixture.request("Employee", "name == 'E5'")).first)
            object.setValue(Decimal(55), forKey: "salary")
            try child.save()
            childProbe.object = object
        }
        // Saved in the child: unchanged there, so freed; changed in the parent, so kept there.
        #expect(childProbe.object == nil && child.registeredObjects.isEmpty)
        parent.performAndWait {
            probe.object = parent.registeredObjects.first { $0.entity.name == "Employee" }
            // The employee, and the department its fired to-one references.
            #expect(parent.registeredObjects.count == 2 && parent.hasChanges)
        }
        #expect(probe.object?.value(forKey: "salary") as? Decimal == 55)
        try parent.performAndWait { try parent.save() }
        #expect(probe.object == nil && parent.registeredObjects.isEmpty)
        #expect(try fixture.names("Employee", "salary == 55") == ["E5"])
    }

    // MARK: - Objects being freed

    /// An object being freed is not returned by a lookup (which would keep a freed object), and
    /// a new object may take its ID meanwhile without being removed by the old one's `deinit`.
    @Test(arguments: ContextFixture.storeTypes) func anObjectBeingFreedIsNotFound(_ storeType: String) throws {
        let model = CompanyModel.make()
        model[entity: "Department"].managedObjectClassName = String(reflecting: LifetimeDeinitProbe.self)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let folder = try TemporaryFolder()
        _ = try coordinator.addPersistentStore(
            ofType: storeType, configurationName: nil,
            at: try folder.storeURL(for: storeType, name: "Probe.sqlite"))
        let setup = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        setup.persistentStoreCoordinator = coordinator
        NSManagedObject(entity: model[entity: "Department"], insertInto: setup).setValue("Sales", forKey: "title")
        try setup.save()

        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var foundWhileFreed: [Bool] = []
        var replacement: NSManagedObject?
        var id: NSManagedObjectID?
        do {
            let department = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department")).first)
            let probe = try #require(department as? LifetimeDeinitProbe)
            id = department.objectID
            probe.onDeinit = { context, id in
                foundWhileFreed.append(context.registeredObject(for: id) != nil)
                foundWhileFreed.append(context.registeredObjects.contains { $0.objectID == id })
                replacement = context.object(with: id)
            }
        }
        #expect(foundWhileFreed == [false, false])
        let departmentID = try #require(id)
        let newObject = try #require(replacement)
        #expect(context.registeredObject(for: departmentID) === newObject)
        #expect(newObject.value(forKey: "title") as? String == "Sales")
        #expect(context.registeredObjects.count == 1)
    }

    /// Core Data confinement says objects are used on their context's queue; an object whose
    /// last reference goes on another thread must still leave the registry safely.
    @Test(arguments: ContextFixture.storeTypes) func objectsFreedOnAnotherThreadLeaveSafely(_ storeType: String) throws {
        let fixture = try Self.fixture(storeType, extra: 3_000)
        let context = fixture.freshContext()
        for _ in 0..<5 {
            let objects = try context.fetch(fixture.request("Employee"))
            let ids = objects.map(\.objectID)
            var found = 0
            try Self.drop(consume objects, onAnotherThreadFromBothEnds: false) {
                for id in ids.reversed() where context.registeredObject(for: id) != nil { found += 1 }
                _ = try context.fetch(fixture.request("Employee", "salary < 1000"))
            }
            #expect(found <= ids.count)
            #expect(context.registeredObjects.isEmpty)
        }
    }

    /// Drops the last references to `objects` on another thread, from the end (or from both
    /// ends in turn), while `meanwhile` runs on this one; returns once both are done.
    static func drop(
        _ objects: consuming [NSManagedObject], onAnotherThreadFromBothEnds bothEnds: Bool, meanwhile: () throws -> Void
    ) rethrows {
        final class Handoff: @unchecked Sendable {
            var objects: [NSManagedObject]
            init(_ objects: [NSManagedObject]) { self.objects = objects }
        }
        let handoff = Handoff(objects)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            while !handoff.objects.isEmpty {
                handoff.objects.removeLast()
                if bothEnds, !handoff.objects.isEmpty { handoff.objects.removeFirst() }
            }
            done.signal()
        }
        defer { done.wait() }
        try meanwhile()
    }
}

/// An object whose `deinit` asks its context for its own ID.
final class LifetimeDeinitProbe: NSManagedObject {
    nonisolated(unsafe) var onDeinit: ((NSManagedObjectContext, NSManagedObjectID) -> Void)?
    deinit {
        if let context = managedObjectContext { onDeinit?(context, objectID) }
    }
}
