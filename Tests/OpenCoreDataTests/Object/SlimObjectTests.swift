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

    @Test func anObjectIsFiftySixBytes() {
        // The metadata field read right: a root Swift class with one Int is 24 bytes.
        #expect(instanceSize(Probe.self) == 24)
        // A fault stays within the allocator's 64-byte block (an 80-byte one before).
        #expect(instanceSize(NSManagedObject.self) == 56)
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
                // The row, if any, is the object's one link: no state.
                if rowData {
                    guard case .row = object.link else {
                        Issue.record("expected the row as the link, got \(String(describing: object.link))")
                        continue
                    }
                } else {
                    #expect(object.link == nil)
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
        // The destination read is kept in the object's one link, with no state made.
        guard case .kept(let kept) = bob.link else {
            Issue.record("expected the destination kept in the link, got \(String(describing: bob.link))")
            return
        }
        #expect(kept.destination === sales && bob.keptDestination === sales && kept.row == bob.fetchedRow)
        bob.setValue("Robert", forKey: "name")
        guard case .state = bob.link else {
            Issue.record("a change must give the object a state")
            return
        }
        #expect(bob.changedValues()["name"] as? String == "Robert")
        context.refresh(bob, mergeChanges: false)
        #expect(bob.isFault && bob.link == nil)
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
        #expect(loose.entity === entity && loose.link == nil)
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
