import Foundation
@testable import OpenCoreData
import OpenStoreCore
import TestSupport
import Testing

/// The context's registry is an open-addressing table: registering, replacing and removing in
/// any order must answer as a dictionary by ID does, through growth and the back-shifting of
/// removals, for permanent IDs of two stores and temporary IDs alike.
@Suite struct ObjectRegistryTests {
    let model = CompanyModel.make()

    func object(_ id: NSManagedObjectID) -> NSManagedObject {
        let object = NSManagedObject(entity: id.entity, insertInto: nil)
        object.objectID = id
        return object
    }

    @Test func answersAsADictionaryThroughGrowthAndRemovals() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let stores = try (0..<2).map { _ in
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        }
        let origins = stores.map { $0.idOrigin(entities: coordinator.entityDescriptions) }
        let employee = try #require(coordinator.schema.entityIDsByName["Employee"])
        let department = try #require(coordinator.schema.entityIDsByName["Department"])
        let registry = ObjectRegistry()
        var reference: [NSManagedObjectID: NSManagedObject] = [:]
        var random = SplitMix64(seed: 7)
        func next(_ bound: Int) -> Int { random.next(below: bound) }
        var ids: [NSManagedObjectID] = []
        for _ in 0..<600 {
            // The same key in both stores and both entities: four distinct IDs.
            let key = Int64(next(200) + 1)
            let id: NSManagedObjectID
            switch next(5) {
            case 0: id = NSManagedObjectID.temporary(for: model[entity: "Employee"])
            case 1: id = NSManagedObjectID(origin: origins[1], key: ObjectKey(entityID: employee, primaryKey: key))
            case 2: id = NSManagedObjectID(origin: origins[0], key: ObjectKey(entityID: department, primaryKey: key))
            default: id = NSManagedObjectID(origin: origins[0], key: ObjectKey(entityID: employee, primaryKey: key))
            }
            ids.append(id)
            switch next(4) {
            case 0:
                // Remove a known ID (present or not).
                let victim = ids[next(ids.count)]
                registry[victim] = nil
                reference[victim] = nil
            default:
                let made = object(id)
                registry[id] = made
                reference[id] = made
            }
            #expect(registry.count == reference.count)
        }
        for id in ids { #expect(registry[id] === reference[id]) }
        #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set(reference.values.map(ObjectIdentifier.init)))
        // An equal ID made anew finds the same object; by origin and key too.
        for (id, registered) in reference where !id.isTemporaryID {
            let again = NSManagedObjectID(origin: id.origin, key: id.rowKey)
            #expect(registry[again] === registered && registry[id.origin, id.rowKey] === registered)
        }
        // Look up or register: a second call finds what the first made.
        let fresh = NSManagedObjectID(origin: origins[1], key: ObjectKey(entityID: department, primaryKey: 999))
        let first = registry.object(origin: origins[1], key: fresh.rowKey) { object(fresh) }
        let second = registry.object(origin: origins[1], key: fresh.rowKey) { Issue.record("made twice"); return object(fresh) }
        #expect(first.created && !second.created && first.object === second.object)
        #expect(registry.count == reference.count + 1)
    }

    /// A fetch's rows register at once: registered objects are found, the others made once each
    /// (a key listed twice gets one object), in the order of the keys, and found again after.
    @Test func registersAFetchsRowsAtOnce() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let origin = store.idOrigin(entities: coordinator.entityDescriptions)
        let employee = try #require(coordinator.schema.entityIDsByName["Employee"])
        func key(_ primaryKey: Int64) -> ObjectKey { ObjectKey(entityID: employee, primaryKey: primaryKey) }
        let registry = ObjectRegistry()
        let existing = object(NSManagedObjectID(origin: origin, key: key(2)))
        registry[existing.objectID] = existing
        let keys = [key(1), key(2), key(3), key(1), key(40)]
        var made: [Int] = []
        let (objects, created) = registry.objects(origin: origin, keys: keys) { index in
            made.append(index)
            return object(NSManagedObjectID(origin: origin, key: keys[index]))
        }
        #expect(made == [0, 2, 3, 4])
        #expect(created == [true, false, true, false, true])
        #expect(objects[1] === existing && objects[3] === objects[0])
        #expect(objects.map(\.objectID.rowKey) == keys)
        #expect(registry.count == 4)
        for (key, registered) in zip(keys, objects) { #expect(registry[origin, key] === registered) }
        // Found again, none made.
        let again = registry.objects(origin: origin, keys: keys) { _ in
            Issue.record("made again")
            return existing
        }
        #expect(zip(again.objects, objects).allSatisfy { $0 === $1 } && !again.created.contains(true))
    }
}
