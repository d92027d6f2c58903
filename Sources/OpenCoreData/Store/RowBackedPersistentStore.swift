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
    /// Whether the store was added with `NSPersistentHistoryTrackingKey` set: its saves then
    /// carry a `HistoryTransactionDraft` (read once, not per save).
    let tracksHistory: Bool

    init(
        rows: RowStore, coordinator: NSPersistentStoreCoordinator, configurationName: String?, url: URL,
        options: [AnyHashable: Any]?
    ) {
        self.rows = rows
        tracksHistory = Self.optionFlag(options?[NSPersistentHistoryTrackingKey])
        super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
    }

    deinit { remoteChangeWatcher?.stop() }
}
