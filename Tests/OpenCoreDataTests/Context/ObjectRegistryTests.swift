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

    /// A coordinator with one in-memory store, the store's ID origin and the number of the
    /// Employee entity.
    func oneStore() throws -> (coordinator: NSPersistentStoreCoordinator, origin: IDOrigin, employee: Int) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let employee = try #require(coordinator.schema.entityIDsByName["Employee"])
        return (coordinator, store.idOrigin(entities: coordinator.entityDescriptions), employee)
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
            switch next(5) {
            case 0:
                // Remove a known ID (present or not).
                let victim = ids[next(ids.count)]
                registry[victim] = nil
                reference[victim] = nil
            case 1:
                // Move a known ID's object (or a new one) to this ID, as a save gives an inserted
                // object its permanent ID: in place, or (this ID taken, the object not registered
                // under the old one) the old way.
                let old = ids[next(ids.count)]
                let moving = reference[old] ?? object(old)
                registry.reregister(moving, from: (old.origin, old.rowKey), to: (id.origin, id.rowKey))
                if reference[old] === moving { reference[old] = nil }
                reference[id] = moving
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
        let second = registry.object(origin: origins[1], key: fresh.rowKey) {
            Issue.record("made twice"); return object(fresh)
        }
        #expect(first.created && !second.created && first.object === second.object)
        #expect(registry.count == reference.count + 1)
    }

    /// A fetch's rows register at once: registered objects are found, the others made once each
    /// (a key listed twice gets one object), in the order of the keys, and found again after.
    @Test func registersAFetchsRowsAtOnce() throws {
        let (_, origin, employee) = try oneStore()
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

    /// A batched fetch's rows are uniqued by a batch table: rows already registered keep their
    /// object, a key listed twice gets one object, and the registry answers for the table's
    /// objects as for its own, through replacing and removing them.
    @Test func uniquesABatchedFetchsRowsByItsTable() throws {
        let (_, origin, employee) = try oneStore()
        func key(_ primaryKey: Int64) -> ObjectKey { ObjectKey(entityID: employee, primaryKey: primaryKey) }
        let registry = ObjectRegistry()
        let existing = object(NSManagedObjectID(origin: origin, key: key(9)))
        registry[existing.objectID] = existing
        // Not in key order: the table finds rows through its sorted positions. Enough rows for
        // a table.
        let more = (0..<Int64(ObjectRegistry.batchTableMinimumRows)).map { key(1_000 + $0) }
        var keys = [key(5), key(3), key(5), key(9), key(3), key(12)] + more
        let expected = keys
        var made: [ObjectKey] = []
        var madeAt: [Int] = []
        let batch = try #require(
            registry.batchObjects(origin: origin, keys: &keys) { position, key in
                made.append(key)
                madeAt.append(position)
                return object(NSManagedObjectID(origin: origin, key: key))
            })
        #expect(keys.isEmpty && made == [key(5), key(3), key(12)] + more)
        // `make` is told each key's position in the keys given (a fetch finds the row there).
        #expect(madeAt == [0, 1, 5] + Array(6..<6 + more.count))
        let objects = batch.objects
        #expect(batch.table.order != nil && batch.table.liveCount == 3 + more.count)
        #expect(objects[0] === objects[2] && objects[1] === objects[4] && objects[3] === existing)
        #expect(objects.map(\.objectID.rowKey) == expected)
        #expect(registry.count == 4 + more.count)
        for (key, registered) in zip(expected, objects) { #expect(registry[origin, key] === registered) }
        for position in expected.indices { #expect(registry.object(in: batch.table, at: position) === objects[position]) }
        #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set(objects.map(ObjectIdentifier.init)))
        // Looked up or registered: the table's object is found, nothing made.
        let found = registry.object(origin: origin, key: key(12)) {
            Issue.record("made again")
            return existing
        }
        #expect(found.object === objects[5] && !found.created)
        // Replaced: the new object takes the row, the table lets go of the old one.
        let replacement = object(objects[1].objectID)
        registry[objects[1].objectID] = replacement
        #expect(registry[origin, key(3)] === replacement && batch.table.liveCount == 2 + more.count)
        #expect(registry.count == 4 + more.count && registry.object(in: batch.table, at: 4) === replacement)
        // Removed.
        registry[objects[0].objectID] = nil
        #expect(registry[origin, key(5)] == nil && registry.count == 3 + more.count)
        #expect(batch.table.liveCount == 1 + more.count)
        // Emptied: every object is handed back, and the table holds none.
        #expect(registry.removeAll().count == 3 + more.count && registry.count == 0 && batch.table.liveCount == 0)
        #expect(registry[origin, key(12)] == nil)
    }

    /// Rows a batch table cannot hold (several entities, a negative key) or should not (too few,
    /// too many tables already) are left to the caller.
    @Test func aBatchTableHoldsEnoughKeysOfOneEntity() throws {
        let (coordinator, origin, employee) = try oneStore()
        let department = try #require(coordinator.schema.entityIDsByName["Department"])
        let registry = ObjectRegistry()
        let rows = ObjectRegistry.batchTableMinimumRows
        func rowKeys(from first: Int64) -> [ObjectKey] {
            (0..<Int64(rows)).map { ObjectKey(entityID: employee, primaryKey: first + $0) }
        }
        func make(_: Int, _ key: ObjectKey) -> NSManagedObject { object(NSManagedObjectID(origin: origin, key: key)) }
        for var keys in [
            rowKeys(from: 1) + [ObjectKey(entityID: department, primaryKey: 2)],
            rowKeys(from: 1) + [ObjectKey(entityID: employee, primaryKey: -1)], Array(rowKeys(from: 1).dropLast()), [],
        ] {
            let before = keys
            #expect(registry.batchObjects(origin: origin, keys: &keys, make: make) == nil)
            #expect(keys == before && registry.count == 0)
        }
        // In key order, the slots themselves are searched.
        var batches: [[NSManagedObject]] = []
        for index in 0..<ObjectRegistry.batchTableLimit {
            var ascending = rowKeys(from: Int64(index * rows + 1))
            let batch = try #require(registry.batchObjects(origin: origin, keys: &ascending, make: make))
            let fourth = ObjectKey(entityID: employee, primaryKey: Int64(index * rows + 4))
            #expect(batch.table.order == nil && registry[origin, fourth] === batch.objects[3])
            batches.append(batch.objects)
        }
        // No more tables: the next batch is left to the hash table.
        var beyond = rowKeys(from: Int64(ObjectRegistry.batchTableLimit * rows + 1))
        #expect(registry.batchObjects(origin: origin, keys: &beyond, make: make) == nil)
        #expect(registry.count == batches.joined().count)
    }
}
