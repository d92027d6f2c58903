import OpenPredicate
import OpenStoreCore

/// A persistent store whose objects live in a `RowStore` back end: what contexts fetch from and
/// save to (the in-memory and SQLite stores).
class RowBackedPersistentStore: NSPersistentStore {
    /// The back end that keeps the rows and runs fetch plans.
    let rows: RowStore
    /// Posts `NSPersistentStoreRemoteChange` when the store's history grows (see
    /// `RemoteChangeWatcher`); nil unless the options ask for it.
    var remoteChangeWatcher: RemoteChangeWatcher?

    init(
        rows: RowStore, coordinator: NSPersistentStoreCoordinator, configurationName: String?, url: URL,
        options: [AnyHashable: Any]?
    ) {
        self.rows = rows
        super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
    }

    deinit { remoteChangeWatcher?.stop() }
}
