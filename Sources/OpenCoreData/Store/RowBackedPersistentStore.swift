import OpenPredicate
import OpenStoreCore

/// A persistent store whose objects live in a `RowStore` back end: what contexts fetch from and
/// save to (the in-memory and SQLite stores).
class RowBackedPersistentStore: NSPersistentStore {
    /// The back end that keeps the rows and runs fetch plans.
    let rows: RowStore

    init(
        rows: RowStore, coordinator: NSPersistentStoreCoordinator, configurationName: String?, url: URL,
        options: [AnyHashable: Any]?
    ) {
        self.rows = rows
        super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
    }
}
