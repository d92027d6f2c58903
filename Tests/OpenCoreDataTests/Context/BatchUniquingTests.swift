import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

/// A batched fetch of one entity's rows (`fetchBatchSize`) uniques its objects by a table of its
/// rows rather than one registry entry each (see `BatchTable`): the context must answer for them
/// exactly as for objects it registers one by one — the same instance for an ID while it lives,
/// in `registeredObjects`, freed when dropped in any order, kept with `retainsRegisteredObjects`,
/// gone after a saved deletion or a reset.
@Suite struct BatchUniquingTests {
    static let extra = 300

    /// A batched request for the employees that are not managers (one entity), in key order or
    /// sorted by salary (descending: not key order).
    static func request(_ fixture: ContextFixture, sorted: Bool) -> NSFetchRequest<NSManagedObject> {
        let request = fixture.request("Employee", sort: sorted ? [("salary", false)] : [])
        request.includesSubentities = false
        request.fetchBatchSize = 25
        return request
    }

    /// The batch table uniquing a batched fetch's objects, if one does.
    static func table(of objects: [NSManagedObject]) -> BatchTable? {
        guard case .table(let table) = objects.lazy.compactMap(\.batchMember).first?.batch.identities else { return nil }
        return table
    }

    @Test(arguments: ContextFixture.storeTypes, [false, true])
    func aBatchedFetchsObjectsAreTheContexts(_ storeType: String, sorted: Bool) throws {
        let fixture = try RegisteredObjectLifetimeTests.fixture(storeType, extra: Self.extra)
        let context = fixture.freshContext()
        let objects = try context.fetch(Self.request(fixture, sorted: sorted))
        #expect(objects.count == Self.extra + 3)
        let table = try #require(Self.table(of: objects))
        #expect(table.liveCount == objects.count && (table.order != nil) == sorted)
        #expect(context.registeredObjects == Set(objects))
        for object in objects {
            #expect(context.object(with: object.objectID) === object)
            #expect(try context.existingObject(with: object.objectID) === object)
        }
        // The same rows fetched again, unbatched, are the same instances, with the same values
        // as another context reads.
        let again = try context.fetch(fixture.request("Employee", sort: [("name", true)]))
        let byID = Dictionary(uniqueKeysWithValues: objects.map { ($0.objectID, $0) })
        for object in again where object.entity.name == "Employee" { #expect(byID[object.objectID] === object) }
        let reference = fixture.freshContext()
        for object in objects {
            let name = try reference.existingObject(with: object.objectID).value(forKey: "name") as? String
            #expect(object.value(forKey: "name") as? String == name && name != nil)
        }
    }

    /// Dropped in random order, the objects leave the table one by one (found by key, not only
    /// next to the last one gone); kept ones stay the context's, and a dropped row's ID makes a
    /// new object with the row's values.
    @Test(arguments: ContextFixture.storeTypes, [false, true])
    func droppedObjectsLeaveInAnyOrder(_ storeType: String, sorted: Bool) throws {
        let fixture = try RegisteredObjectLifetimeTests.fixture(storeType, extra: Self.extra)
        let context = fixture.freshContext()
        var held = try context.fetch(Self.request(fixture, sorted: sorted))
        let table = try #require(Self.table(of: held))
        let ids = held.map(\.objectID)
        let names = Dictionary(
            uniqueKeysWithValues: try fixture.context.fetch(fixture.request("Employee")).map {
                ($0.objectID, $0.value(forKey: "name") as? String)
            })
        var kept: [NSManagedObject] = []
        for index in held.indices where index % 3 == 0 { kept.append(held[index]) }
        let probes = held.map(RegisteredObjectLifetimeTests.Probe.init)
        var random = SplitMix64(seed: 0xBA7C_0001)
        while !held.isEmpty { held.remove(at: random.next(below: held.count)) }
        #expect(probes.filter { $0.object != nil }.count == kept.count)
        #expect(table.liveCount == kept.count && context.registeredObjects == Set(kept))
        for (index, id) in ids.enumerated() {
            let object = context.object(with: id)
            if index % 3 == 0 { #expect(object === kept[index / 3]) }
            #expect(object.value(forKey: "name") as? String == names[id] ?? nil)
        }
    }

    @Test(arguments: ContextFixture.storeTypes)
    func objectsRegisteredBeforeTheFetchAreItsObjects(_ storeType: String) throws {
        let fixture = try RegisteredObjectLifetimeTests.fixture(storeType, extra: Self.extra)
        let context = fixture.freshContext()
        // Fetched and fired, unchanged (a change pending would take the fetch through the
        // context's changes, without a table).
        let ann = try ContextFixture.employee("Ann", in: context)
        #expect(ann.value(forKey: "name") as? String == "Ann")
        let e7 = try ContextFixture.employee("E7", in: context)
        let objects = try context.fetch(Self.request(fixture, sorted: false))
        let table = try #require(Self.table(of: objects))
        #expect(objects.contains { $0 === ann } && objects.contains { $0 === e7 })
        #expect(table.liveCount == objects.count - 2 && context.registeredObjects == Set(objects))
        #expect(Set(objects.map(ObjectIdentifier.init)).count == objects.count)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func retainingRegisteredObjectsKeepsABatchsObjects(_ storeType: String) throws {
        let fixture = try RegisteredObjectLifetimeTests.fixture(storeType, extra: Self.extra)
        let context = fixture.freshContext()
        var objects = try context.fetch(Self.request(fixture, sorted: true))
        let table = try #require(Self.table(of: objects))
        let ids = objects.map(\.objectID)
        let names = objects.map { $0.value(forKey: "name") as? String }
        context.retainsRegisteredObjects = true
        let probes = objects.map(RegisteredObjectLifetimeTests.Probe.init)
        objects = []
        #expect(table.liveCount == 0 && probes.allSatisfy { $0.object != nil })
        #expect(context.registeredObjects.count == ids.count)
        for (index, id) in ids.enumerated() {
            #expect(context.object(with: id) === probes[index].object)
            #expect(context.object(with: id).value(forKey: "name") as? String == names[index])
        }
        // Let go again: the objects are freed.
        context.retainsRegisteredObjects = false
        #expect(probes.allSatisfy { $0.object == nil } && context.registeredObjects.isEmpty)
    }

    @Test(arguments: ContextFixture.storeTypes)
    func aSavedDeletionAndAResetLeaveTheTable(_ storeType: String) throws {
        let fixture = try RegisteredObjectLifetimeTests.fixture(storeType, extra: Self.extra)
        let context = fixture.freshContext()
        let objects = try context.fetch(Self.request(fixture, sorted: true))
        let table = try #require(Self.table(of: objects))
        let gone = objects[10]
        let id = gone.objectID
        context.delete(gone)
        try context.save()
        #expect(!context.registeredObjects.contains(gone) && table.liveCount == objects.count - 1)
        #expect(throws: (any Error).self) { try context.existingObject(with: id) }
        context.reset()
        #expect(context.registeredObjects.isEmpty && table.liveCount == 0)
        // The objects outlive the reset, and are freed after it without the context.
        let other = try context.fetch(Self.request(fixture, sorted: true))
        #expect(other.count == objects.count - 1 && !other.contains { $0 === objects[0] })
    }

    /// Objects dropped on another thread leave the table there while the context looks rows
    /// up and fetches on its own (CI runs this suite under ThreadSanitizer too).
    @Test(arguments: ContextFixture.storeTypes)
    func objectsFreedOnAnotherThreadLeaveTheTableSafely(_ storeType: String) throws {
        let fixture = try RegisteredObjectLifetimeTests.fixture(storeType, extra: 3_000)
        let context = fixture.freshContext()
        for sorted in [false, true, false] {
            let objects = try context.fetch(Self.request(fixture, sorted: sorted))
            let table = try #require(Self.table(of: objects))
            let ids = objects.map(\.objectID)
            var found = 0
            // From both ends: next to the last one gone, and found by key.
            try RegisteredObjectLifetimeTests.drop(consume objects, onAnotherThreadFromBothEnds: true) {
                for id in ids.reversed() where context.registeredObject(for: id) != nil { found += 1 }
                _ = try context.fetch(fixture.request("Employee", "salary < 1000"))
            }
            #expect(found <= ids.count)
            #expect(context.registeredObjects.isEmpty && table.liveCount == 0)
        }
    }

    /// An unbatched fetch of many rows of one entity in key order (no sort descriptors) is
    /// uniqued by a table too, with or without property values; one in another order registers
    /// its objects one by one (sorting the keys would cost more than the table saves).
    @Test(arguments: ContextFixture.storeTypes, [false, true])
    func unbatchedFetchesInKeyOrderAreUniquedByATable(_ storeType: String, rowData: Bool) throws {
        let fixture = try RegisteredObjectLifetimeTests.fixture(storeType, extra: Self.extra)
        let context = fixture.freshContext()
        let request = fixture.request("Employee")
        request.includesSubentities = false
        request.includesPropertyValues = rowData
        var objects = try context.fetch(request)
        #expect(context.registry.tableCount == 1 && objects.allSatisfy { $0.isFault && $0.batchMember == nil })
        #expect((objects.first?.fetchedRow != nil) == rowData)
        #expect(context.registeredObjects == Set(objects))
        for object in objects { #expect(context.object(with: object.objectID) === object) }
        // Read, they fire one by one with their own rows.
        let referenceContext = fixture.freshContext()
        let names = Dictionary(
            uniqueKeysWithValues: try referenceContext.fetch(fixture.request("Employee")).map {
                ($0.objectID, $0.value(forKey: "name") as? String)
            })
        for object in objects { #expect(object.value(forKey: "name") as? String == names[object.objectID] ?? nil) }
        // Fetched again while held: the same objects, from the table.
        let again = try context.fetch(request)
        #expect(zip(again, objects).allSatisfy { $0 === $1 } && context.registry.tableCount == 1)
        objects = []
        _ = consume again
        #expect(context.registeredObjects.isEmpty && context.registry.tableCount == 0)
        // Not in key order: one entry each.
        request.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
        objects = try context.fetch(request)
        #expect(context.registry.tableCount == 0 && context.registeredObjects.count == objects.count)
    }
}
