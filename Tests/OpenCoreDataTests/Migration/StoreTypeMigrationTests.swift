import Foundation
@testable import OpenCoreData
import TestSupport
import Testing

/// `migratePersistentStore(_:to:options:withType:)` between every two kinds of store, in-memory
/// included: the same objects, the same object IDs, and new objects numbered after the old.
@Suite struct StoreTypeMigrationTests {
    static let types = [NSSQLiteStoreType, NSInMemoryStoreType] + (PostgresTestServer.isEnabled ? [NSPostgreSQLStoreType] : [])

    @Test(arguments: types.flatMap { from in types.filter { $0 != from }.map { (from, $0) } })
    func movesEveryObjectWithItsID(_ from: String, _ to: String) throws {
        var random = SplitMix64(seed: 0x3161)
        let rows = RandomMigrationTests.randomRows(using: &random)
        let model = RandomMigrationTests.model()
        let folder = try TemporaryFolder()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            ofType: from, configurationName: nil, at: try folder.storeURL(for: from, name: "from.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try RandomMigrationTests.insert(rows, into: context)
        let ids = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).map { $0.objectID.uriRepresentation() }
        }
        #expect(ids.count == rows.filter { $0.entity == "Item" || $0.entity == "Special" }.count)
        let before = try RandomMigrationTests.contents(in: context, model: model)
        let uuid = store.identifier

        let moved = try coordinator.migratePersistentStore(
            store, to: try #require(try folder.storeURL(for: to, name: "to.sqlite") ?? URL(string: "memory://")), withType: to)
        #expect(coordinator.persistentStores.count == 1)
        #expect(moved.identifier == uuid)
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = coordinator
        #expect(try RandomMigrationTests.contents(in: fresh, model: model) == before)
        try fresh.performAndWait {
            // Every old URI still names its object.
            for uri in ids {
                let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
                #expect(try fresh.existingObject(with: id).value(forKey: "uid") != nil)
            }
            // A new object takes a key after every old one of its hierarchy.
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: fresh)
            owner.setValue(Int64(999), forKey: "uid")
            try fresh.save()
            let key = try #require(owner.objectID.key?.primaryKey)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Owner")
            let keys = try fresh.fetch(request).compactMap { $0.objectID.key?.primaryKey }
            #expect(key == keys.max())
            #expect(Set(keys).count == keys.count)
        }
    }
}
