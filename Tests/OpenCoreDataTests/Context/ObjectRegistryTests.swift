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

/// A save moves its new objects from their temporary IDs to permanent keys: at once (each
/// entry given its new key in place, the index rebuilt) when they are a quarter of the registry
/// or more and the keys lie above every key registered in their scope, else one by one. Either
/// way every moved object is found under its new ID and no longer under its old one, and the
/// others stay where they were (but for one whose key a moved object takes).
@Suite struct ObjectRegistryMoveTests {
    enum Scenario: CaseIterable, Sendable {
        /// The new objects are the last registered, in order (a save's usual case).
        case last
        /// Objects registered after the new ones: the first is found by a scan.
        case fetchedAfter
        /// A removal moved the last new object into the hole: later ones found by address.
        case afterARemoval
        /// One object moved was never registered: it is registered under its new key.
        case oneNotRegistered
        /// Few new objects among many: one by one.
        case few
        /// The new keys are among those registered: one by one, the moved object taking its key.
        case keysTaken
        /// As `last`, in a registry that keeps its objects alive.
        case retaining
    }

    let model = CompanyModel.make()

    @Test(arguments: Scenario.allCases) func movesNewObjectsToTheirPermanentKeys(_ scenario: Scenario) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let origin = store.idOrigin(entities: coordinator.entityDescriptions)
        let employee = try #require(coordinator.schema.entityIDsByName["Employee"])
        func key(_ primaryKey: Int64) -> ObjectKey { ObjectKey(entityID: employee, primaryKey: primaryKey) }
        func object(_ id: NSManagedObjectID) -> NSManagedObject {
            let object = NSManagedObject(entity: model[entity: "Employee"], insertInto: nil)
            object.objectID = id
            return object
        }
        let registry = ObjectRegistry()
        if scenario == .retaining { registry.retainsObjects = true }
        var fetched: [Int64: NSManagedObject] = [:]
        func fetch(_ keys: ClosedRange<Int64>) {
            for primaryKey in keys {
                let made = object(NSManagedObjectID(origin: origin, key: key(primaryKey)))
                registry[made.objectID] = made
                fetched[primaryKey] = made
            }
        }
        fetch(1...(scenario == .few ? 400 : 50))
        let new = (0..<(scenario == .few ? 20 : 200)).map { _ in
            object(NSManagedObjectID.temporary(for: model[entity: "Employee"]))
        }
        let temporaryIDs = new.map(\.objectID)
        for object in new where scenario != .oneNotRegistered || object !== new[7] { registry[object.objectID] = object }
        switch scenario {
        case .fetchedAfter: fetch(51...80)
        case .afterARemoval:
            registry[fetched[10]!.objectID] = nil
            fetched[10] = nil
        default: break
        }
        let first: Int64 = scenario == .keysTaken ? 41 : 1_001
        let keys = (0..<Int64(new.count)).map { first + $0 }
        let atOnce = registry.movesAtOnce(count: new.count, to: origin, entityID: employee, keys: keys)
        #expect(atOnce == ![.few, .keysTaken].contains(scenario))
        registry.move(new.map { Unmanaged.passUnretained($0) }, to: origin, entityID: employee, keys: keys)
        for (object, primaryKey) in zip(new, keys) {
            object.objectID = NSManagedObjectID(origin: origin, key: key(primaryKey))
        }
        for (object, primaryKey) in zip(new, keys) {
            #expect(registry[origin, key(primaryKey)] === object)
        }
        for id in temporaryIDs { #expect(registry[id] == nil) }
        for (primaryKey, object) in fetched where !keys.contains(primaryKey) {
            #expect(registry[origin, key(primaryKey)] === object)
        }
        let kept = fetched.keys.filter { !keys.contains($0) }.count
        #expect(registry.count == kept + new.count)
        // The index still grows and shrinks as it should after the move.
        for object in new.prefix(5) { registry[object.objectID] = nil }
        #expect(registry.count == kept + new.count - 5)
        #expect(registry[origin, key(keys[5])] === new[5])
    }

    /// After moving objects at once, keys at or below the highest moved are no longer new: a
    /// later move to them goes one by one.
    @Test func keysMovedToAreNoLongerNew() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let origin = store.idOrigin(entities: coordinator.entityDescriptions)
        let employee = try #require(coordinator.schema.entityIDsByName["Employee"])
        let registry = ObjectRegistry()
        let objects = (0..<8).map { _ in
            let object = NSManagedObject(entity: model[entity: "Employee"], insertInto: nil)
            object.objectID = NSManagedObjectID.temporary(for: model[entity: "Employee"])
            registry[object.objectID] = object
            return object
        }
        #expect(registry.movesAtOnce(count: 4, to: origin, entityID: employee, keys: [5, 6, 7, 8]))
        registry.move(objects.prefix(4).map { Unmanaged.passUnretained($0) }, to: origin, entityID: employee, keys: [5, 6, 7, 8])
        #expect(!registry.movesAtOnce(count: 4, to: origin, entityID: employee, keys: [8, 9, 10, 11]))
        #expect(registry.movesAtOnce(count: 4, to: origin, entityID: employee, keys: [9, 10, 11, 12]))
        // Keys not ascending are not taken at once.
        #expect(!registry.movesAtOnce(count: 4, to: origin, entityID: employee, keys: [9, 11, 10, 12]))
    }
}
