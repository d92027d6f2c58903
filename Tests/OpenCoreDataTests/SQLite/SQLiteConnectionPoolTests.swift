import Foundation
@testable import OpenCoreData
import OpenSQLiteStore
import TestSupport
import Testing

/// `NSPersistentStoreConnectionPoolMaxSizeKey` on the SQLite store: the connection for saves and
/// the read-only ones fetches run on side by side (see `SQLiteRowStore`).
@Suite struct SQLiteConnectionPoolTests {
    /// The SQLite store of a coordinator on a new file, with the key set to `size` (none: nil).
    static func rows(_ folder: TemporaryFolder, size: Int?) throws -> (NSManagedObjectContext, SQLiteRowStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CompanyModel.make())
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.url.appendingPathComponent("Pool\(size ?? 0).sqlite"),
            options: size.map { [NSPersistentStoreConnectionPoolMaxSizeKey: $0 as NSNumber] })
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let rows = try #require((store as? RowBackedPersistentStore)?.rows as? SQLiteRowStore)
        return (context, rows)
    }

    /// The key counts every connection: 1 leaves none for reading, 3 gives two readers; without
    /// it the store has one reader per core (two at least). A context's fetch reads with one.
    @Test func theKeySetsHowManyConnectionsRead() throws {
        let folder = try TemporaryFolder()
        let (context, rows) = try Self.rows(folder, size: nil)
        #expect(rows.testingReaders?.limit == max(2, ProcessInfo.processInfo.activeProcessorCount))
        try context.performAndWait {
            let department = NSEntityDescription.insertNewObject(forEntityName: "Department", into: context)
            department.setValue("Sales", forKey: "title")
            try context.save()
            context.reset()
            let found = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Department"))
            #expect(found.map { $0.value(forKey: "title") as? String } == ["Sales"])
        }
        #expect(rows.testingReaders?.opened == 1)

        #expect(try Self.rows(folder, size: 1).1.testingReaders == nil)
        #expect(try Self.rows(folder, size: 3).1.testingReaders?.limit == 2)
    }
}
