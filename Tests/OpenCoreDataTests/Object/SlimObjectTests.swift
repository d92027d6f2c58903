import Foundation
@testable import OpenCoreData
import Testing

/// A fetched fault holds only a fault's fields; what else an object needs (decoded values,
/// extras, a made ID) lives in one `ObjectState`, made on first need and dropped when the object
/// turns back into a fault (see `NSManagedObject`'s storage).
@Suite struct SlimObjectTests {
    /// The instance size a class's metadata records (a 32-bit field 24 bytes in, on platforms
    /// without Objective-C interoperability).
    private func instanceSize(_ type: AnyClass) -> Int {
        Int(unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 24, as: UInt32.self))
    }

    @Test func anObjectIsFortyBytes() {
        // The metadata field read right: a root Swift class with one Int is 24 bytes.
        #expect(instanceSize(Probe.self) == 24)
        // A fault takes the allocator's 48-byte block (a 64-byte one with five fields, an
        // 80-byte one before): its link is one word, whatever it links.
        #expect(MemoryLayout<ObjectLink>.size == 8)
        #expect(instanceSize(NSManagedObject.self) == 40)
    }

    private func employees(_ context: NSManagedObjectContext, rowData: Bool = true, batchSize: Int = 0) throws
        -> [NSManagedObject]
    {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.includesPropertyValues = rowData
        request.fetchBatchSize = batchSize
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func faultsHoldNoState(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        for rowData in [false, true] {
            let objects = try employees(fixture.freshContext(), rowData: rowData)
            #expect(objects.count == 4)
            for object in objects {
                #expect(object.isFault)
                // The row, if any, is the object's one link (of its own, or its place in the
                // block of rows its fetch read): no state.
                if rowData {
                    guard object.linksFetchedRow else {
                        Issue.record("expected the row as the link, got \(String(describing: object.link))")
                        continue
                    }
                } else {
                    #expect(object.link.isHomeOnly)
                }
                #expect((object.fetchedRow != nil) == rowData)
            }
        }
    }

    @Test(arguments: ContextFixture.storeTypes)
    func readingMakesNoStateAChangeDoesAndARefreshDropsIt(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let bob = try ContextFixture.employee("Bob", in: context)
        #expect(bob.value(forKey: "name") as? String == "Bob")
        let sales = try #require(bob.value(forKey: "department") as? NSManagedObject)
        // The destination read is kept in a field of the object's own: the link stays the row,
        // with no state made.
        guard bob.linksFetchedRow else {
            Issue.record("expected the row as the link, got \(String(describing: bob.link))")
            return
        }
        #expect(bob.keptDestination === sales && bob.fetchedRow?.count == bob.layout.count)
        bob.setValue("Robert", forKey: "name")
        guard case .state = bob.link else {
            Issue.record("a change must give the object a state")
            return
        }
        #expect(bob.changedValues()["name"] as? String == "Robert")
        context.refresh(bob, mergeChanges: false)
        #expect(bob.isFault && bob.link.isHomeOnly)
        #expect(bob.value(forKey: "name") as? String == "Bob")
        #expect(bob.value(forKey: "department") as? NSManagedObject === sales)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func anIDAskedOfABatchedFaultKeepsItsPlaceInTheBatch(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let objects = try employees(context, batchSize: 2)
        let names = ["Ann", "Bob", "Cy", "Dee"]
        let dee = objects[3]
        #expect(dee.batchMember?.index == 3)
        // The ID is kept in a state the batch link moves into.
        let id = dee.objectID
        #expect(dee.objectID === id && !id.isTemporaryID)
        #expect(dee.batchMember?.index == 3 && dee.batchMember?.batch === objects[2].batchMember?.batch)
        // Firing it loads its window: its neighbour's row comes with it.
        #expect(dee.value(forKey: "name") as? String == "Dee")
        #expect(objects[2].batchMember == nil && context.cachedRow(of: objects[2]) != nil)
        #expect(objects.map { $0.value(forKey: "name") as? String } == names)
        #expect(try context.existingObject(with: id) === dee)
    }

    /// The base an object's home is, if it is one.
    private func base(of object: NSManagedObject) -> HomeBase? {
        guard case .base(let base) = object.home else { return nil }
        return base
    }

    @Test(arguments: ContextFixture.storeTypes)
    func theObjectsOfAContextShareOneBaseThatHoldsTheContextWeakly(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        var context: NSManagedObjectContext? = fixture.freshContext()
        let objects = try employees(try #require(context))
        let department = try #require(objects[0].value(forKey: "department") as? NSManagedObject)
        let shared = try #require(base(of: objects[0]))
        // One base for every object whose ID comes from the store, the destination's too.
        #expect(objects.allSatisfy { base(of: $0) === shared } && base(of: department) === shared)
        #expect(shared.context === context && shared.entity == nil && objects[0].managedObjectContext === context)
        // An object made without a context holds its entity alone; inserting it moves it to the
        // context's base for its temporary IDs.
        let entity = objects[0].entity
        let new = NSManagedObject(entity: entity, insertInto: nil)
        guard case .entity(let held) = new.home, held === entity else {
            Issue.record("expected the entity alone as the home, got \(new.home)")
            return
        }
        context?.insert(new)
        let temporary = try #require(base(of: new))
        #expect(temporary !== shared && temporary.context === context && temporary.origin?.isTemporary == true)
        #expect(new.managedObjectContext === context && new.objectID.isTemporaryID)
        // The objects do not keep their context: once it is gone, they have none.
        context = nil
        #expect(shared.context == nil && objects.allSatisfy { $0.managedObjectContext == nil })
        #expect(objects[0].entity === entity && new.managedObjectContext == nil)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func objectsOutlivingTheirContextKeepNoneOfItsObjects(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        // A context that keeps its objects alive lets them go when it goes: they keep its
        // registry through their base, but it forgets them (no cycle).
        weak var kept: NSManagedObject?
        weak var keeper: NSManagedObjectContext?
        do {
            let context = fixture.freshContext()
            context.retainsRegisteredObjects = true
            kept = try employees(context).first
            keeper = context
            #expect(kept != nil)
        }
        #expect(keeper == nil && kept == nil)
        // Objects that outlive their context read no destination, and leave the forgotten
        // registry without harm when they go.
        var context: NSManagedObjectContext? = fixture.freshContext()
        var objects = try employees(try #require(context))
        let registry = try #require(base(of: objects[0])?.registry)
        #expect(registry.count == objects.count)
        #expect(objects.allSatisfy { $0.isFault })
        context = nil
        #expect(registry.count == 0)
        // Their faults do not fire from the rows they were fetched with (their bases were told
        // the context is gone): their properties read nil, as before the context went.
        #expect(objects.allSatisfy { $0.value(forKey: "name") == nil })
        #expect(objects.allSatisfy { $0.value(forKey: "department") == nil })
        objects.removeAll()
        #expect(registry.count == 0)
    }

    @Test func aVersionOfMoreThanThirtyTwoBitsIsKeptWhole() throws {
        let model = CompanyModel.make()
        let entity = try #require(model.entitiesByName["Department"])
        let object = NSManagedObject(entity: entity, insertInto: nil)
        for version: Int64 in [0, 7, Int64(UInt32.max) - 1, Int64(UInt32.max), Int64(UInt32.max) + 5, .max, -3, 12] {
            object.version = version
            #expect(object.version == version)
        }
    }

    @Test(arguments: ContextFixture.storeTypes)
    func aBatchedFaultHasNoVersionAndARowEndsItsPlaceInTheBatch(_ storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let context = fixture.freshContext()
        let objects = try employees(context, batchSize: 2)
        let cy = objects[2]
        #expect(cy.batchMember?.index == 2 && cy.version == 0 && cy.fetchedRow == nil)
        // A row cached for it by another path (here, its window loaded by a neighbour) ends
        // its wait for the window; it then reads the row's version, not its old index.
        #expect(objects[3].value(forKey: "name") as? String == "Dee")
        #expect(cy.batchMember == nil && cy.isFault && cy.version > 0)
        #expect(cy.value(forKey: "name") as? String == "Cy")
    }

    @Test func anObjectWithoutContextKeepsItsEntityAndDefaultsUntilItsFirstWrite() throws {
        let model = CompanyModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let entity = try #require(model.entitiesByName["Department"])
        let loose = NSManagedObject(entity: entity, insertInto: nil)
        #expect(loose.entity === entity && loose.link.isHomeOnly)
        let defaults = entity.defaultValues
        #expect(loose.storedValues.keys == defaults.keys)
        loose.setValue("Ops", forKey: "title")
        #expect(loose.value(forKey: "title") as? String == "Ops")
        // Its temporary ID is made when asked for, and the entity stays the object's.
        let id = loose.objectID
        #expect(id.isTemporaryID && loose.objectID === id && id.entity === entity && loose.entity === entity)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.insert(loose)
        try context.save()
        #expect(!loose.objectID.isTemporaryID && loose.entity === entity)
    }

    @Test func anIDWhoseOriginDescribesTheEntityElsewhereLeavesTheObjectsEntity() throws {
        let fixture = try ContextFixture()
        let saved = try ContextFixture.department("Sales", in: fixture.context)
        // A description of the same entity from another copy of the model.
        let other = try #require(CompanyModel.make().entitiesByName["Department"])
        let object = NSManagedObject(entity: other, insertInto: nil)
        object.objectID = saved.objectID
        #expect(object.entity === other && object.objectID == saved.objectID)
        #expect(object.identityOrigin === saved.identityOrigin && object.identityKey == saved.identityKey)
    }
}

private final class Probe {
    var value = 0
}
