import Foundation
@testable import OpenCoreData
import OpenStoreCore
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

    /// A SQLite store of `model` at `url` holding `rows`, and its coordinator.
    static func sqliteStore(_ model: NSManagedObjectModel, at url: URL, holding rows: [RandomMigrationTests.Row]) throws
        -> (NSPersistentStoreCoordinator, NSPersistentStore)
    {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try RandomMigrationTests.insert(rows, into: context)
        return (coordinator, store)
    }

    /// The copy reports to the caller's current `Progress`, whose fraction is whole once it
    /// returns; each store, written into, tells how many rows it wrote as it goes, up to all.
    @Test(arguments: types)
    func copyingReportsRowsAsTheyAreWritten(_ to: String) throws {
        let model = RandomMigrationTests.model()
        let folder = try TemporaryFolder()
        let owners = (1...1_500).map { RandomMigrationTests.Row(entity: "Owner", uid: Int64($0), values: [:], owner: nil) }
        let tags = (1_501...1_600).map { RandomMigrationTests.Row(entity: "Tag", uid: Int64($0), values: ["label": "t"]) }
        let (coordinator, store) = try Self.sqliteStore(
            model, at: folder.url.appendingPathComponent("from.sqlite"), holding: owners + tags)

        let progress = Progress(totalUnitCount: 10)
        progress.becomeCurrent(withPendingUnitCount: 10)
        let url = try #require(try folder.storeURL(for: to, name: "to.sqlite") ?? URL(string: "memory://"))
        let moved = try coordinator.migratePersistentStore(store, to: url, withType: to)
        progress.resignCurrent()
        #expect(progress.fractionCompleted == 1)
        #expect(progress.completedUnitCount == 10)

        // The same rows into an empty store of the same type, through the store itself.
        let contents = try #require((moved as? RowBackedPersistentStore)?.rows as? TransferableRowStore).exportContents()
        #expect(contents.rows.count == 1_600)
        let other = NSPersistentStoreCoordinator(managedObjectModel: model)
        let empty = try other.addPersistentStore(
            ofType: to, configurationName: nil,
            at: try folder.storeURL(for: to, name: "again.sqlite") ?? folder.url.appendingPathComponent("memory"))
        var reported: [Int] = []
        try #require((empty as? RowBackedPersistentStore)?.rows as? TransferableRowStore).importContents(
            contents, storeUUID: nil
        ) { reported.append($0) }
        #expect(reported.last == 1_600)
        #expect(reported == reported.sorted(), "never goes back")
        #expect(reported.count >= 3, "reports along the way, not only at the end: \(reported)")
        #expect(reported.filter { $0 > 0 && $0 < 1_600 }.count >= 1, "\(reported)")
    }

    /// A migration reports to the caller's current `Progress` too, whole when it returns.
    @Test func migratingReportsToTheCurrentProgress() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("store.sqlite")
        let v1 = RandomMigrationTests.model(), v2 = RandomMigrationTests.model([.renameTag, .addNote])
        var random = SplitMix64(seed: 0x5150)
        let (coordinator, store) = try Self.sqliteStore(
            v1, at: url, holding: RandomMigrationTests.randomRows(using: &random))
        try coordinator.remove(store)

        let progress = Progress(totalUnitCount: 4)
        progress.becomeCurrent(withPendingUnitCount: 4)
        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        try manager.migrateStore(
            from: url, sourceType: NSSQLiteStoreType, with: nil, toDestinationURL: url, destinationType: NSSQLiteStoreType)
        progress.resignCurrent()
        #expect(manager.migrationProgress == 1)
        #expect(progress.fractionCompleted == 1)
    }
}
