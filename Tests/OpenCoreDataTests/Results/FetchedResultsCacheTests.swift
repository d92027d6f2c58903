import Foundation
import OpenCoreData
import Testing

/// The persistent cache of a fetched results controller on every store: used while the store's
/// rows are unchanged, refused after a save; never on the in-memory store (nothing to check).
@Suite struct FetchedResultsCacheTests {
    @Test(arguments: ContextFixture.storeTypes)
    func theCacheHoldsWhileTheRowsDoNotChange(storeType: String) throws {
        let fixture = try ContextFixture(storeType: storeType)
        let name = "cache-tests-\(UUID().uuidString)"
        defer { NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name) }
        /// Whether a new controller on a new context read the cache (without it, reading the
        /// section names loads the objects), and the names it holds.
        func fetch() throws -> (fromCache: Bool, names: [String]) {
            let context = fixture.freshContext()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "name", cacheName: name)
            return try context.performAndWait {
                try controller.performFetch()
                let unloaded = controller.fetchedObjects?.allSatisfy(\.isFault) ?? false
                let names = controller.fetchedObjects?.map { $0.value(forKey: "name") as? String ?? "?" } ?? []
                return (unloaded, names)
            }
        }
        let stamped = storeType != NSInMemoryStoreType
        let written = try fetch()
        #expect(written.names == ["Ann", "Bob", "Cy", "Dee"])
        let read = try fetch()
        #expect(read.fromCache == stamped, "\(storeType)")
        #expect(read.names == ["Ann", "Bob", "Cy", "Dee"])
        try fixture.context.performAndWait {
            let bob = try ContextFixture.employee("Bob", in: fixture.context)
            bob.setValue("Abe", forKey: "name")
            try fixture.context.save()
        }
        let changed = try fetch()
        #expect(!changed.fromCache)
        #expect(changed.names == ["Abe", "Ann", "Cy", "Dee"])
        #expect(try fetch().fromCache == stamped)
    }
}
